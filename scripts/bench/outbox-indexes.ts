#!/usr/bin/env bun
/**
 * What the deliveries search indexes (issue 20: `deliveries_notification_token`, `deliveries_tokenless_device`, `deliveries_message`,
 * `messages_app_template`) cost a fan-out: enqueue 100,000 deliveries of one message with them, and
 * again on a database without them, 3 runs each, median. Prints one JSON line.
 *   bun scripts/bench/outbox-indexes.ts [--deliveries N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../../src/db/sqlite/store';
import { silentLogger } from '../../src/lib/logger';
import { Outbox } from '../../src/modules/delivery/outbox/outbox';
import { localWakeUps } from '../../src/coordination/local/wake-ups';

const { values } = parseArgs({ options: { deliveries: { type: 'string', default: '100000' } } });
const count = Number(values.deliveries);

async function once(withIndexes: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-bench-idx-'));
  const store = openSqliteStore(join(dir, 'i.db'), { logger: silentLogger });
  store.migrate();
  const db = store.sqlite;
  if (!withIndexes) for (const index of ['deliveries_notification_token', 'deliveries_tokenless_device', 'deliveries_message', 'messages_app_template']) db.$client.run(`DROP INDEX ${index}`);
  db.$client.run(
    `INSERT INTO apps (id, name, plan, app_secret_hash, app_secret_sealed, signing_secret_sealed, source, created_at, updated_at) VALUES ('b', 'b', 'pro', 'h', 's', 's', 'api', 0, 0)`,
  );
  // Random device ids and token ids: a fan-out's devices come ordered by end user, not by either.
  const targets = Array.from({ length: count }, () => ({ deviceId: `dev_${crypto.randomUUID().replaceAll('-', '')}`, tokenId: Math.floor(Math.random() * 10_000_000) }));
  const content = { type: 'notification' as const, templateSlug: 'welcome', releaseVersion: 1, title: 'Hello', body: 'World' };
  const started = performance.now();
  const outbox = new Outbox(store, localWakeUps());
  await store.write((tx) => outbox.enqueue(tx, { appId: 'b', content, targets, now: Date.now() }));
  const ms = performance.now() - started;
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const withIdx: number[] = [];
const without: number[] = [];
for (let i = 0; i < 3; i++) {
  without.push(await once(false));
  withIdx.push(await once(true));
}
const figures = { deliveries: count, enqueue_ms_with_search_indexes: Math.round(median(withIdx)), enqueue_ms_without: Math.round(median(without)) };
console.error(`enqueue of ${count} deliveries: ${figures.enqueue_ms_with_search_indexes} ms with the search indexes, ${figures.enqueue_ms_without} ms without`);
console.log(JSON.stringify(figures));
