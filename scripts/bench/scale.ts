/**
 * The scale curve of a fan-out: one `notifications/send` to 10,000, 100,000 and 1,000,000
 * connected iOS devices through a real server process and the APNs stand-in in its own process,
 * each on a freshly seeded database: time to answer, drain rate end to end (until the stand-in has
 * accepted every push), server CPU per delivery and the server's peak RSS, so that a reader sees
 * how each cost grows with the audience. Prints one JSON line, keys named by size:
 * `{"fanout_10k_answer_ms", "fanout_10k_answer_cpu_ms" (the server's CPU until the answer), "fanout_10k_per_s", "rss_peak_10k_mb", …, "fanout_1m_per_s",
 * "fanout_1m_drain_vs_100k"}` (the last: the 1M drain rate over the 100k one).
 *   bun scripts/bench/scale.ts [--binary dist/islet] [--sizes 10000,100000,1000000]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { seed } from './seed';
import { round } from './stats';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({ options: { binary: { type: 'string' }, sizes: { type: 'string', default: '10000,100000,1000000' } } });
const SIZES = values.sizes.split(',').map(Number);
const KEY = 'sk_bench_fanout';
const TEMPLATE = { slug: 'welcome', title: 'Hello {{ name }}', body: 'You have {{count}} new messages' };

const now = () => performance.timeOrigin + performance.now();
const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const cpuUs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
/** 10000 → "10k", 1000000 → "1m". */
const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}m` : `${n / 1000}k`);

const key = apnsKey();
const standin = await startStandinProcess([key]);
const figures: Record<string, number> = {};
try {
  for (const devices of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'islet-bench-scale-'));
    try {
      const toml = benchConfig(dir, key, standin, KEY);
      const seededAt = now();
      await seed(dir, toml, { fanout: devices, starts: 0 });
      console.error(`scale ${label(devices)}: seeded in ${Math.round(now() - seededAt)} ms`);
      Object.assign(figures, await measure(dir, toml, devices));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const drain = (n: number) => figures[`fanout_${label(n)}_per_s`];
  if (drain(1_000_000) && drain(100_000)) figures.fanout_1m_drain_vs_100k = round(drain(1_000_000)! / drain(100_000)!, 2);
  console.log(JSON.stringify(figures));
} finally {
  await standin.stop();
}

async function measure(dir: string, toml: string, devices: number): Promise<Record<string, number>> {
  const server = await spawnServer(dir, toml, values.binary ? [values.binary] : undefined);
  try {
    const { postOk } = serverClient(() => server.url, KEY, 'bench');
    await postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [TEMPLATE] }, { authorization: 'Bearer bench' });
    const rssBefore = status(server.proc.pid, 'VmRSS');
    const base = standin.accepted();
    const cpuBefore = cpuUs(server.proc.pid);
    const sentAt = now();
    const sent = await postOk('/api/apps/fanout/notifications/send', { templateSlug: 'welcome', variables: { name: 'Ada', count: '3' } });
    const answerMs = now() - sentAt;
    const answerCpuUs = cpuUs(server.proc.pid) - cpuBefore;
    if (sent.messageCount !== devices) throw new Error(`expected ${devices} messages, got ${JSON.stringify(sent)}`);
    const drainedMs = (await standin.waitFor(base + devices, 30 * 60_000)) - sentAt;
    const n = label(devices);
    const result = {
      [`fanout_${n}_answer_ms`]: Math.round(answerMs),
      // The server's CPU (all threads) until the answer: what a busy machine moves less than the wall time.
      [`fanout_${n}_answer_cpu_ms`]: Math.round(answerCpuUs / 1000),
      [`fanout_${n}_per_s`]: Math.round(devices / (drainedMs / 1000)),
      [`fanout_${n}_cpu_us_per_delivery`]: Math.round((cpuUs(server.proc.pid) - cpuBefore) / devices),
      [`rss_peak_${n}_mb`]: Math.round(status(server.proc.pid, 'VmHWM')),
    };
    console.error(`scale ${n}: ${JSON.stringify(result)} (RSS before the send ${Math.round(rssBefore)} MB)`);
    return result;
  } finally {
    await server.stop();
  }
}
