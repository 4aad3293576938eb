/**
 * API speed: requests/s and p50/p99 latency of Live Activity updates (PATCH) from 50 concurrent
 * clients against a real server process, next to a bare Elysia route under the same load
 * (scripts/bench/bare-elysia.ts). Islet runs with its defaults except the per-app rate limit,
 * which is off so that the server, not the limiter, is measured. Deliveries go to the simulator.
 * Prints `{"api_update_rps", "api_update_p50_ms", "api_update_p99_ms", "api_baseline_rps", "api_ratio"}`.
 * Run with `bun scripts/bench/api-update.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../../src/test-support/spawn-server';
import { runLoad } from './load';

const CONCURRENCY = 50;
const DURATION_MS = 5000;
const ACTIVITIES = 200;
const KEY = 'sk_bench_api_update';

const dir = mkdtempSync(join(tmpdir(), 'islet-bench-api-'));
const server = await spawnServer(
  dir,
  `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "bench"\n[database]\npath = "${join(dir, 'islet.db')}"\n` +
    `[plans.bench]\nlive_activities = true\n[[apps]]\nid = "bench"\nplan = "bench"\napp_secret = "${KEY}"\n`,
);
const headers = { 'x-service-key': KEY, 'content-type': 'application/json' };
const bare = Bun.spawn([process.execPath, join(import.meta.dir, 'bare-elysia.ts'), '19211'], { stdout: 'pipe', stderr: 'inherit' });

try {
  for (let i = 0; i < ACTIVITIES; i++) {
    await fetch(`${server.url}/api/apps/bench/devices`, { method: 'POST', headers, body: JSON.stringify({ endUserId: `u${i}`, platform: 'android', token: `t${i}` }) });
  }
  const started = await fetch(`${server.url}/api/apps/bench/live-activities`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } }),
  });
  const ids = ((await started.json()) as { activities: { id: string }[] }).activities.map((a) => a.id);
  if (ids.length !== ACTIVITIES) throw new Error(`expected ${ACTIVITIES} activities, got ${ids.length}`);

  const body = (i: number) => JSON.stringify({ contentState: { progress: String(i % 101), detail: `step ${i}` } });
  const islet = await runLoad({
    url: (i) => `${server.url}/api/apps/bench/live-activities/${ids[i % ids.length]}`,
    method: 'PATCH',
    headers,
    body,
    concurrency: CONCURRENCY,
    durationMs: DURATION_MS,
  });
  const baseline = await runLoad({
    url: (i) => `http://127.0.0.1:19211/api/apps/bench/live-activities/${ids[i % ids.length]}`,
    method: 'PATCH',
    headers,
    body,
    concurrency: CONCURRENCY,
    durationMs: DURATION_MS,
  });
  console.error(`islet: ${JSON.stringify(islet)}\nbare elysia: ${JSON.stringify(baseline)}`);
  if (islet.errors > 0) throw new Error(`${islet.errors} updates failed`);
  console.log(
    JSON.stringify({
      api_update_rps: islet.rps,
      api_update_p50_ms: islet.p50Ms,
      api_update_p99_ms: islet.p99Ms,
      api_baseline_rps: baseline.rps,
      api_ratio: Math.round((islet.rps / baseline.rps) * 100) / 100,
    }),
  );
} finally {
  bare.kill();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
