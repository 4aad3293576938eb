#!/usr/bin/env bun
/**
 * What the operator's kit costs: a /metrics scrape with N deliveries queued (the scrape-time
 * GROUP BY queries), the HTTP metrics per request, and `islet backup` of that database.
 * Prints `{"scrape_empty_ms", "scrape_ms", "http_metrics_us_per_request", "backup_ms", "backup_mb"}`.
 *   bun scripts/bench/operations.ts [N=100000]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { appsService } from '../../src/modules/apps/apps.service';
import { backupDatabase } from '../../src/db/sqlite/backup';
import { credentialsReset } from '../../src/modules/delivery/endpoint-health/endpoint-reset';
import { notificationContent } from '../../src/test-support/delivery-fixtures';

const n = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-ops-'));
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const config = parseConfig(`[database]\npath = "${join(dir, 'islet.db')}"\n[admin]\ntoken = "bench"\n`, join(dir, 'islet.toml'));
  const { ctx } = await bootstrapSqlite(config, { logger: silentLogger });
  for (const app of ['a1', 'a2', 'a3']) appsService(ctx, credentialsReset(ctx)).create({ id: app, source: 'api' });
  const now = ctx.clock.now();
  const client = ctx.db.sqlite.$client;
  const ids: string[] = [];
  client.transaction(() => {
    const insert = client.query(
      `INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at) VALUES (?, 'a1', ?, ?, ?, 'production', ?, ?)`,
    );
    for (let i = 0; i < n; i++) {
      insert.run(`dev_${i}`, `user-${i}`, i % 2 ? 'ios' : 'android', randomBytes(32).toString('hex'), now, now);
      ids.push(`dev_${i}`);
    }
  })();
  const app = createApp(ctx);
  const scrape = async () => {
    const started = performance.now();
    const res = await app.handle(new Request('http://islet.test/metrics'));
    await res.text();
    return performance.now() - started;
  };
  const emptyScrapes: number[] = [];
  for (let i = 0; i < 7; i++) emptyScrapes.push(await scrape());
  await ctx.db.write((tx) => ctx.outbox.enqueue(tx, { appId: 'a1', content: notificationContent(), targets: ids.map((deviceId) => ({ deviceId })), now }));

  const scrapes: number[] = [];
  for (let i = 0; i < 7; i++) scrapes.push(await scrape());

  // The per-request work the HTTP hook adds: one counter increment and one histogram observation.
  const { metrics } = ctx;
  const labels = { method: 'PATCH', route: '/api/apps/:appId/live-activities/:id', status: 200 };
  const rounds = 200_000;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    metrics.httpRequests.inc(labels);
    metrics.httpSeconds.observe(labels, 0.004);
  }
  const perRequestUs = ((performance.now() - started) * 1000) / rounds;

  const backupFile = join(dir, 'backup.db');
  const backupStarted = performance.now();
  backupDatabase(config, backupFile);
  const backupMs = performance.now() - backupStarted;

  const figures = {
    queued: n,
    scrape_empty_ms: Math.round(median(emptyScrapes) * 10) / 10,
    scrape_ms: Math.round(median(scrapes) * 10) / 10,
    http_metrics_us_per_request: Math.round(perRequestUs * 100) / 100,
    backup_ms: Math.round(backupMs),
    backup_mb: Math.round((statSync(backupFile).size / 1e6) * 10) / 10,
  };
  console.error(`scrape with an empty queue: ${figures.scrape_empty_ms} ms, with ${n} queued: ${figures.scrape_ms} ms (medians of 7); HTTP metrics ${figures.http_metrics_us_per_request} µs/request; backup ${figures.backup_ms} ms for ${figures.backup_mb} MB`);
  console.log(JSON.stringify(figures));
  ctx.db.sqlite.$client.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
