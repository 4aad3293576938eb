#!/usr/bin/env bun
/**
 * The retention job on a large outbox, in this process: `--messages` old messages of
 * `--deliveries` finished deliveries each (all past `retention.deliveries_days`), as many recent
 * ones that must stay, then one run of the job (src/modules/scheduler/jobs/retention.job.ts).
 * Also times queueing one 100,000-device fan-out on that database (what an index on the outbox
 * costs every send). Prints `{"retention_ms", "retention_deleted", "enqueue_100k_ms"}`.
 *   bun scripts/bench/retention.ts [--messages 200] [--deliveries 2500]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { retentionJob } from '../../src/modules/scheduler/jobs/retention.job';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '200' }, deliveries: { type: 'string', default: '2500' } } });
const MESSAGES = Number(values.messages);
const PER_MESSAGE = Number(values.deliveries);
const DAY_MS = 24 * 60 * 60 * 1000;

const dir = mkdtempSync(join(tmpdir(), 'islet-bench-retention-'));
try {
  const toml = `[database]\npath = "${join(dir, 'islet.db')}"\n[admin]\ntoken = "bench"\n[[apps]]\nid = "bench"\napp_secret = "sk_bench_retention_0123456789"\n`;
  const { ctx } = await bootstrapSqlite(parseConfig(toml, join(dir, 'islet.toml')), { logger: silentLogger });
  const client = ctx.db.sqlite.$client;
  const now = Date.now();
  const content = { type: 'notification' as const, templateSlug: 'welcome', releaseVersion: 1, title: 'Hello', body: 'Hi' };
  // Old messages (finished, to be pruned) and recent ones (kept), interleaved as a real outbox would have them.
  await ctx.db.write(async (tx) => {
    for (let m = 0; m < 2 * MESSAGES; m++) {
      const at = m % 2 === 0 ? now - 30 * DAY_MS : now - DAY_MS;
      const { messageId } = await ctx.outbox.enqueue(tx, { appId: 'bench', content, targets: [], now: at });
      client
        .query(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
           INSERT INTO deliveries (app_id, message_id, device_id, status, attempts, next_attempt_at, created_at, updated_at)
           SELECT 'bench', ?2, 'dev_' || i, 'delivered', 1, ?3, ?3, ?3 FROM n`,
        )
        .run(PER_MESSAGE, messageId, at);
    }
  });
  const count = (table: string) => client.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
  const before = { messages: count('messages'), deliveries: count('deliveries') };
  console.error(`retention: ${before.messages} messages, ${before.deliveries} deliveries`);

  let started = performance.now();
  await retentionJob(ctx).run(now);
  const retentionMs = performance.now() - started;
  const after = { messages: count('messages'), deliveries: count('deliveries') };
  if (after.messages !== MESSAGES || after.deliveries !== MESSAGES * PER_MESSAGE) throw new Error(`unexpected rows left: ${JSON.stringify(after)}`);

  const targets = Array.from({ length: 100_000 }, (_, i) => ({ deviceId: `dev_fanout_${i}` }));
  started = performance.now();
  await ctx.db.write((tx) => ctx.outbox.enqueue(tx, { appId: 'bench', content, targets, now }));
  const enqueueMs = performance.now() - started;
  client.close();
  console.log(
    JSON.stringify({
      retention_ms: Math.round(retentionMs),
      retention_deleted: before.messages - after.messages + before.deliveries - after.deliveries,
      enqueue_100k_ms: Math.round(enqueueMs),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
