/**
 * A send to an audience beside a send to everyone (issue 38), through a real server process and
 * the APNs stand-in in its own process: `--everyone` iOS users of one app, `--tagged` of them
 * tagged `plan=gold` (the rest `plan=free`). Each send runs on a fresh server (a copy of one seeded
 * database), so its peak RSS is its own: the answer time, the time until the stand-in accepted
 * every push, peak RSS and CPU per delivery. Prints the medians as one JSON line.
 *   bun scripts/bench/audience.ts [--runs 3] [--binary dist/islet] [--everyone 150000] [--tagged 100000]
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { apnsToken } from '../../src/test-support/apns-standin';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { benchConfig, startStandinProcess } from './standin-process';
import { median, processCpuUs } from './stats';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    binary: { type: 'string' },
    everyone: { type: 'string', default: '150000' },
    tagged: { type: 'string', default: '100000' },
  },
});
const RUNS = Number(values.runs);
const EVERYONE = Number(values.everyone);
const TAGGED = Number(values.tagged);
const KEY = 'sk_bench_audience';
const TIMEOUT_MS = 300_000;

const now = () => performance.timeOrigin + performance.now();
const rssPeakMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** `EVERYONE` users with one iOS device each; the first `TAGGED` have plan=gold, the others plan=free. */
async function seed(dir: string, toml: string): Promise<void> {
  const { ctx } = await bootstrapSqlite(parseConfig(toml, join(dir, 'islet.toml')), { logger: silentLogger });
  const client = ctx.db.sqlite.$client;
  const at = Date.now();
  const user = client.prepare(`INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES ('aud', ?, 0, ?, ?)`);
  const device = client.prepare(`INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at) VALUES (?, 'aud', ?, 'ios', ?, 'production', ?, ?)`);
  const token = client.prepare(`INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at) VALUES ('aud', 'apns_device', ?, ?, 'production', 'active', ?, ?)`);
  const tag = client.prepare(`INSERT INTO end_user_tags (app_id, end_user_id, key, value) VALUES ('aud', ?, ?, ?)`);
  client.transaction(() => {
    for (let i = 0; i < EVERYONE; i++) {
      const id = `user-${i}`;
      const value = apnsToken();
      user.run(id, at, at);
      device.run(`dev_aud_${i}`, id, value, at, at);
      token.run(value, `dev_aud_${i}`, at, at);
      tag.run(id, 'plan', i < TAGGED ? 'gold' : 'free');
      tag.run(id, 'country', i % 2 === 0 ? 'DE' : 'FR');
    }
  })();
  client.close();
}

const key = apnsKey();
const standin = await startStandinProcess([key]);
const template = mkdtempSync(join(tmpdir(), 'islet-bench-audience-'));
const runDirs: string[] = [];
try {
  const config = (dir: string) => benchConfig(dir, key, standin, KEY, { appId: 'aud' });
  await seed(template, config(template));

  const sends = { everyone: {}, audience: { audience: { tags: { plan: 'gold' }, platform: 'ios' } } } as const;
  const results: Record<string, number>[] = [];
  for (let run = 0; run < RUNS; run++) {
    const result: Record<string, number> = {};
    // Alternating which goes first, so neither always meets a warmer machine.
    const order = run % 2 === 0 ? (['everyone', 'audience'] as const) : (['audience', 'everyone'] as const);
    for (const name of order) {
      const dir = mkdtempSync(join(tmpdir(), 'islet-bench-audience-run-'));
      runDirs.push(dir);
      cpSync(template, dir, { recursive: true });
      const expected = name === 'everyone' ? EVERYONE : TAGGED;
      const figures = await measure(dir, config(dir), sends[name], expected);
      for (const [k, v] of Object.entries(figures)) result[`${name}_${k}`] = v;
    }
    console.error(`audience run ${run + 1}: ${JSON.stringify(result)}`);
    results.push(result);
  }
  const m = (k: string) => median(results.map((r) => r[k]!));
  const n = (count: number) => (count % 1000 === 0 ? `${count / 1000}k` : String(count));
  const out: Record<string, number> = {};
  for (const [name, count] of [['everyone', EVERYONE], ['audience', TAGGED]] as const)
    for (const k of ['answer_ms', 'drain_ms', 'rss_peak_mb', 'cpu_us_per_delivery']) out[`send_${name}_${n(count)}_${k}`] = m(`${name}_${k}`);
  console.log(JSON.stringify(out));
} finally {
  await standin.stop();
  for (const dir of [template, ...runDirs]) rmSync(dir, { recursive: true, force: true });
}

/** One fresh server: the send, then until the stand-in has every push. */
async function measure(dir: string, toml: string, target: object, expected: number): Promise<Record<string, number>> {
  const server = await spawnServer(dir, toml, values.binary ? [values.binary] : undefined);
  try {
    const client = serverClient(() => server.url, KEY, 'bench');
    await client.postOk('/api/admin/apps/aud/releases', { version: 1, status: 'Live', templates: [{ slug: 'offer', title: 'Offer', body: 'For you' }] }, { authorization: 'Bearer bench' });
    const base = standin.accepted();
    const cpuBefore = processCpuUs(server.proc.pid);
    const sentAt = now();
    const sent = await client.postOk('/api/apps/aud/notifications/send', { templateSlug: 'offer', ...target });
    const answerMs = now() - sentAt;
    if (sent.messageCount !== expected) throw new Error(`expected ${expected} messages, got ${JSON.stringify(sent)}`);
    const drainMs = (await standin.waitFor(base + expected, TIMEOUT_MS)) - sentAt;
    return {
      answer_ms: Math.round(answerMs),
      drain_ms: Math.round(drainMs),
      rss_peak_mb: Math.round(rssPeakMb(server.proc.pid)),
      cpu_us_per_delivery: Math.round((processCpuUs(server.proc.pid) - cpuBefore) / expected),
    };
  } finally {
    await server.stop();
  }
}
