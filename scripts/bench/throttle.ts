/**
 * A throttled send through a real server process and the APNs stand-in in its own process: a
 * send to every device at `throttlePerMinute`, and the rate the stand-in saw against the one asked.
 * The spread starts at the send (the server's clock when the request came, taken here just before
 * it), its last delivery is due (devices − 1)·60/rate s later; the achieved rate is
 * (devices − 1) over the time from the send to the stand-in's last acceptance. Behind schedule
 * (the worker slower than the rate) shows as a lower rate; ahead is impossible by construction.
 * Two rates: one the worker keeps up with easily, one near what it sends unthrottled, over about
 * 10 s each; the baseline is the same send unthrottled in the same run (`throttle_unthrottled_per_min`:
 * no rate above it can hold on this machine now). Prints the figures as one JSON line.
 *   bun scripts/bench/throttle.ts [--binary dist/islet] [--devices 100000] [--high-per-minute N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { seed } from './seed';
import { processCpuUs, round } from './stats';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({ options: { binary: { type: 'string' }, devices: { type: 'string', default: '100000' }, 'high-per-minute': { type: 'string' } } });
const DEVICES = Number(values.devices);
const SECRET = 'sk_bench_throttle';
/**
 * About 10 s each: 1,000 named end users at 6,000 a minute (100/s, a rate the worker keeps up with
 * easily), and every device at a tenth of the audience a second (10,000/s for 100,000: close to
 * what the worker sends unthrottled on two cores).
 */
const RUNS = [
  { name: 'low', count: Math.min(1000, DEVICES), perMinute: 6000 },
  { name: 'high', count: DEVICES, perMinute: values['high-per-minute'] ? Number(values['high-per-minute']) : DEVICES * 6 },
];

const key = apnsKey();
const standin = await startStandinProcess([key]);
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-throttle-'));
try {
  const config = benchConfig(dir, key, standin, SECRET);
  await seed(dir, config, { fanout: DEVICES, starts: 0 });
  const server = await spawnServer(dir, config, values.binary ? [values.binary] : undefined);
  try {
    const client = serverClient(() => server.url, SECRET, 'bench');
    await client.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [{ slug: 'promo', title: 'Sale', body: 'Now on' }] }, { authorization: 'Bearer bench' });
    const figures: Record<string, number> = {};
    // The baseline in the same run: the same send unthrottled, drained as fast as the server goes
    // on this machine now (a throttle can only hold a rate below it).
    {
      const base = standin.accepted();
      const sentAt = Date.now();
      const sent = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'promo' });
      if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} devices, got ${JSON.stringify(sent)}`);
      const lastAt = await standin.waitFor(base + DEVICES, 180_000);
      figures.throttle_unthrottled_per_min = Math.round((DEVICES * 60_000) / (lastAt - sentAt));
      console.error(`unthrottled: ${DEVICES} devices drained at ${figures.throttle_unthrottled_per_min}/min (${Math.round(lastAt - sentAt)} ms from the send)`);
    }
    for (const run of RUNS) {
      const count = run.count;
      // Fewer than all: the first users by name (a body of 1,000 names stays under the 64 KiB limit).
      const targetUsers = count < DEVICES ? Array.from({ length: count }, (_, i) => `user-${i}`) : undefined;
      const base = standin.accepted();
      const cpuBefore = processCpuUs(server.proc.pid);
      const sentAt = Date.now();
      const started = performance.now();
      const sent = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'promo', throttlePerMinute: run.perMinute, ...(targetUsers && { targetUsers }) });
      const answerMs = Math.round(performance.now() - started);
      if (sent.messageCount !== count) throw new Error(`expected ${count} devices, got ${JSON.stringify(sent)}`);
      const lastAt = await standin.waitFor(base + count, 120_000);
      const cpuMs = (processCpuUs(server.proc.pid) - cpuBefore) / 1000;
      const achieved = ((count - 1) * 60_000) / (lastAt - sentAt);
      const errorPct = round((Math.abs(achieved - run.perMinute) / run.perMinute) * 100, 2);
      console.error(
        `${run.name}: ${count} devices at ${run.perMinute}/min asked, ${Math.round(achieved)}/min achieved (${errorPct} % off), last push ${Math.round(lastAt - sentAt)} ms after the send (due at ${Math.floor(((count - 1) * 60_000) / run.perMinute)} ms), answer ${answerMs} ms, ${Math.round(cpuMs)} ms of the server's CPU`,
      );
      Object.assign(figures, {
        [`throttle_${run.name}_devices`]: count,
        [`throttle_${run.name}_asked_per_min`]: run.perMinute,
        [`throttle_${run.name}_achieved_per_min`]: Math.round(achieved),
        [`throttle_${run.name}_error_pct`]: errorPct,
        [`throttle_${run.name}_answer_ms`]: answerMs,
        // The server's CPU while it spread the send: polling for due rows included, not per delivery.
        [`throttle_${run.name}_cpu_ms_per_s`]: round(cpuMs / ((lastAt - sentAt) / 1000), 1),
      });
    }
    figures.throttle_rate_error_pct = Math.max(figures.throttle_low_error_pct!, figures.throttle_high_error_pct!);
    console.log(JSON.stringify(figures));
  } finally {
    await server.stop();
  }
} finally {
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
}
