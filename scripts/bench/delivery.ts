#!/usr/bin/env bun
/**
 * The delivery worker alone, in this process (for profiling it with `bun --cpu-prof`): queues N iOS
 * notification deliveries with the outbox's `enqueue`, then times the worker draining them to the
 * APNs stand-in in a separate process. Prints `{"drain_per_s", "cpu_us_per_delivery", …}`.
 * `--inline` keeps claims and outcomes on this thread (the server runs them on the outbox thread).
 *   bun scripts/bench/delivery.ts [N=100000] [--inline]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { appsService } from '../../src/modules/apps/apps.service';
import { credentialsReset } from '../../src/modules/delivery/endpoint-health/endpoint-reset';
import { createDeliveryEngine } from '../../src/modules/delivery/delivery.engine';
import { apnsKey, notificationContent } from '../../src/test-support/delivery-fixtures';
import { startStandinProcess } from './standin-process';
import { threadCpuDelta, threadCpuUs } from './stats';

const n = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 100_000);
const outboxThread = !process.argv.includes('--inline');
const key = apnsKey();
const standin = await startStandinProcess([key]);
const { url, ca } = standin;
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-'));
try {
  const config = parseConfig(`[database]\npath = "${join(dir, 'islet.db')}"\n[admin]\ntoken = "bench"\n[security]\nallow_private_endpoints = true\n`, join(dir, 'islet.toml'));
  const { ctx } = await bootstrapSqlite(config, { logger: silentLogger });
  const apps = appsService(ctx, credentialsReset(ctx));
  await apps.create({ id: 'bench', source: 'api' });
  await apps.setApns('bench', { bundleId: 'com.example.bench', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production', endpoint: url, ca });

  const now = ctx.clock.now();
  const client = ctx.db.sqlite.$client;
  const ids: string[] = [];
  const tokenIds = new Map<string, number>();
  client.transaction(() => {
    const insert = client.query(
      `INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at) VALUES (?, 'bench', ?, 'ios', ?, 'production', ?, ?)`,
    );
    const ledger = client.query<{ id: number }, [string, string, number]>(
      `INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at)
       VALUES ('bench', 'apns_device', ?1, ?2, 'production', 'active', ?3, ?3) RETURNING id`,
    );
    for (let i = 0; i < n; i++) {
      const id = `dev_bench${i}`;
      const token = randomBytes(32).toString('hex');
      insert.run(id, `user-${i}`, token, now, now);
      tokenIds.set(id, ledger.get(token, id, now)!.id);
      ids.push(id);
    }
  })();

  const queuedAt = performance.now();
  await ctx.db.write((tx) => ctx.outbox.enqueue(tx, { appId: 'bench', content: notificationContent('Bench', 'Fan-out'), targets: ids.map((deviceId) => ({ deviceId, tokenId: tokenIds.get(deviceId) })), now }));
  const enqueueMs = performance.now() - queuedAt;

  const engine = createDeliveryEngine(ctx, { outboxThread });
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpuUs();
  const standinBefore = threadCpuUs(standin.pid);
  const started = performance.now();
  await engine.drain();
  const drainMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // Before stop, which ends the outbox thread.
  const threads = threadCpuDelta(threadsBefore, threadCpuUs());
  const standinUs = Object.values(threadCpuDelta(standinBefore, threadCpuUs(standin.pid))).reduce((a, b) => a + b, 0);
  await engine.stop();

  // Every thread by name (JIT compilers, the garbage collector's helpers, the outbox thread): where the CPU beyond the main thread goes.
  console.error(`CPU µs per delivery by thread: ${Object.entries(threads).filter(([, us]) => us > 0).sort((x, y) => y[1] - x[1]).map(([name, us]) => `${name} ${(us / n).toFixed(1)}`).join(', ')}`);
  const delivered = client.query<{ n: number }, []>(`SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'`).get()!.n;
  if (delivered !== n) throw new Error(`only ${delivered} of ${n} delivered`);
  ctx.db.sqlite.$client.close();
  console.log(
    JSON.stringify({ outbox_thread: outboxThread, drain_per_s: Math.round(n / (drainMs / 1000)), cpu_us_per_delivery: Math.round((cpu.user + cpu.system) / n),
      main_thread_cpu_us_per_delivery: Math.round((threads.main ?? 0) / n),
      outbox_thread_cpu_us_per_delivery: Math.round((threads.Worker ?? 0) / n),
      standin_cpu_us_per_delivery: Math.round(standinUs / n),
      n, drain_ms: Math.round(drainMs), enqueue_ms: Math.round(enqueueMs) }),
  );
} finally {
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
}
