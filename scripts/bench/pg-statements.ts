#!/usr/bin/env bun
/**
 * What a Live Activity update costs PostgreSQL in statements: a figure that does not depend on how
 * busy the machine is (the rates do). Serves Islet from the sources on a PostgreSQL that logs every
 * statement, sends `--updates` PATCHes `--concurrency` at a time to activities on Android phones
 * (simulator delivery), waits for their deliveries, and counts what PostgreSQL ran meanwhile:
 * statements per update, and the most frequent ones.
 *   bun scripts/bench/pg-statements.ts [--updates 400] [--concurrency 50] [--top 15]
 * Last line on stdout: {"pg_statements_per_update": …, "pg_transactions_per_update": …}
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { spawnServer } from '../../src/test-support/spawn-server';
import { startPostgres } from '../../src/test-support/postgres';

const { values } = parseArgs({ options: { updates: { type: 'string', default: '400' }, concurrency: { type: 'string', default: '50' }, top: { type: 'string', default: '15' } } });
const UPDATES = Number(values.updates);
const CONCURRENCY = Number(values.concurrency);
const KEY = 'sk_bench_pg_statements';

const pg = await startPostgres({ settings: { log_statement: 'all' } });
const admin = new SQL(pg.url('postgres'), { max: 1 });
await admin.unsafe('CREATE DATABASE statements');
await admin.close();
const dir = mkdtempSync(join(tmpdir(), 'islet-pg-statements-'));
const server = await spawnServer(
  dir,
  `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "bench"\n[plans.bench]\nlive_activities = true\n[[apps]]\nid = "bench"\nplan = "bench"\napp_secret = "${KEY}"\n`,
  undefined,
  { env: { ISLET_DATABASE_URL: pg.url('statements') } },
);
try {
  const headers = { 'x-service-key': KEY, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${server.url}/api/apps/bench${path}`, { method, headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  for (let i = 0; i < CONCURRENCY; i++) await call('POST', '/devices', { endUserId: `u${i}`, platform: 'android', token: `t${i}` });
  const ids: string[] = (await call('POST', '/live-activities', { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } })).activities.map((a: { id: string }) => a.id);
  await Bun.sleep(2000);
  const log = join(pg.baseDir, 'log');
  const from = readFileSync(log, 'utf8').length;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < UPDATES; i = next++) await call('PATCH', `/live-activities/${ids[i % ids.length]}`, { contentState: { progress: String(i % 101) } });
    }),
  );
  // The deliveries of the last updates are claimed and recorded within a few polls.
  await Bun.sleep(2000);
  const lines = readFileSync(log, 'utf8').slice(from).split('\n').filter((l) => /LOG: {2}(statement|execute)/.test(l));
  const counts = new Map<string, number>();
  for (const line of lines) {
    const key = line.replace(/^.*?LOG: {2}(statement|execute [^:]*):\s*/, '').replace(/\s+/g, ' ').slice(0, 110);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const per = (n: number) => Math.round((n / UPDATES) * 100) / 100;
  console.error(`${UPDATES} updates, ${CONCURRENCY} at a time: ${lines.length} statements, ${per(lines.length)} per update`);
  for (const [text, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.error(`  ${String(per(n)).padStart(6)}  ${text}`);
  console.log(JSON.stringify({ pg_statements_per_update: per(lines.length), pg_transactions_per_update: per(counts.get('BEGIN') ?? 0) }));
} finally {
  await server.stop();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
