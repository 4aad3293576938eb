#!/usr/bin/env bun
/**
 * Where a Live Activity update's cost goes on PostgreSQL: serves Islet (from the sources, or
 * `--binary`) on the benchmark's durable PostgreSQL with pg_stat_statements loaded, analyzes the
 * seeded database, sends PATCHes from wrk (50 connections, `--seconds`) and prints the CPU time per
 * update of Islet's process and of PostgreSQL's, and the statements by total execution time (calls,
 * total and mean time; a mean includes waiting for a lock or a core on a busy machine).
 * `--synchronous-commit off` shows what the commit's flush costs (never how Islet runs).
 *   bun scripts/bench/pg-profile.ts [--seconds 8] [--top 12] [--binary dist/islet] [--synchronous-commit off]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { spawnServer } from '../../src/test-support/spawn-server';
import { analyzeBenchDatabase, benchPostgresCpuUs, benchPostgresDatabase, benchPostgresServer, stopBenchPostgres } from './postgres-target';
import { processCpuUs } from './stats';
import { updateScript, wrkLoad } from './wrk';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '8' }, top: { type: 'string', default: '12' }, binary: { type: 'string' }, 'synchronous-commit': { type: 'string' } },
});
if (!Bun.which('wrk')) throw new Error('pg-profile needs wrk (apt-get install wrk)');
const KEY = 'sk_bench_pg_profile';
const sync = values['synchronous-commit'];
await benchPostgresServer({ shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', ...(sync ? { synchronous_commit: sync } : {}) });
const url = await benchPostgresDatabase();
const db = new SQL(url, { max: 1 });
await db.unsafe('CREATE EXTENSION pg_stat_statements');
const dir = mkdtempSync(join(tmpdir(), 'islet-pg-profile-'));
const server = await spawnServer(
  dir,
  `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "bench"\n[plans.bench]\nlive_activities = true\n[[apps]]\nid = "bench"\nplan = "bench"\napp_secret = "${KEY}"\n`,
  values.binary ? [values.binary] : undefined,
  { env: { ISLET_DATABASE_URL: url } },
);
try {
  const headers = { 'x-service-key': KEY, 'content-type': 'application/json' };
  for (let i = 0; i < 200; i += 50) {
    const devices = Array.from({ length: 50 }, (_, j) => ({ endUserId: `u${i + j}`, platform: 'android', token: `t${i + j}` }));
    await Promise.all(devices.map((d) => fetch(`${server.url}/api/apps/bench/devices`, { method: 'POST', headers, body: JSON.stringify(d) })));
  }
  const started = await fetch(`${server.url}/api/apps/bench/live-activities`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } }),
  });
  const ids = ((await started.json()) as { activities: { id: string }[] }).activities.map((a) => a.id);
  await analyzeBenchDatabase(url);
  await db.unsafe('SELECT pg_stat_statements_reset()');
  const script = updateScript(ids, KEY);
  const reading = () => ({ islet: processCpuUs(server.proc.pid), postgres: benchPostgresCpuUs() });
  let used = { islet: 0, postgres: 0 };
  const result = (await wrkLoad({
    url: server.url,
    script,
    connections: 50,
    durationMs: Number(values.seconds) * 1000,
    measure: () => {
      const before = reading();
      return () => {
        const after = reading();
        used = { islet: after.islet - before.islet, postgres: after.postgres - before.postgres };
      };
    },
  }))!;
  if (result.errors > 0) throw new Error(`${result.errors} updates failed`);
  console.log(`${result.requests} updates, ${result.rps}/s, p99 ${result.p99Ms} ms${sync ? ` (synchronous_commit = ${sync})` : ''}`);
  console.log(`CPU per update: Islet ${Math.round(used.islet / result.requests)} µs, PostgreSQL ${Math.round(used.postgres / result.requests)} µs`);
  const rows = await db.unsafe(
    `SELECT calls, round(total_exec_time::numeric, 1) AS ms, round((total_exec_time / calls * 1000)::numeric, 1) AS us, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT ${Number(values.top)}`,
  );
  console.log('   calls   total ms   mean µs  statement');
  for (const r of rows) console.log(`${String(r.calls).padStart(8)} ${String(r.ms).padStart(10)} ${String(r.us).padStart(9)}  ${r.query}`);
} finally {
  await db.close();
  await server.stop();
  await stopBenchPostgres();
  rmSync(dir, { recursive: true, force: true });
}
