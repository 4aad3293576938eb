/**
 * API speed: requests/s and p50/p99 latency of Live Activity updates (PATCH) from 50 concurrent
 * clients against a real server process, next to two bare Elysia routes under the same load
 * (scripts/bench/bare-elysia.ts), measured in turns: one that only validates the body (the old
 * baseline, `api_baseline_rps`) and one that also writes it durably to one SQLite row in WAL with
 * Islet's pragmas before answering (`api_durable_baseline_rps`). The load comes from wrk when it is installed,
 * else from load.ts (which takes more of the machine's CPU from the server: fewer requests/s).
 * Islet runs with its defaults except the per-app rate limit, which is off so that the server, not the limiter, is measured; every update
 * is written (activity, message, delivery) before its answer, and the server's worker delivers it
 * to the simulator meanwhile. Prints the medians of `--runs` turns as one JSON line:
 * `{"api_update_rps", "api_update_p50_ms", "api_update_p99_ms", "api_update_cpu_us", "api_update_main_thread_cpu_us",
 * "api_baseline_rps", "api_ratio", "api_durable_baseline_rps", "api_durable_baseline_p99_ms", "api_durable_ratio"}`:
 * `…_cpu_us` is the server process's CPU time (all threads; the main thread alone) per update answered.
 * With `--database postgres` also `api_update_database_cpu_us`: the PostgreSQL server's CPU time per
 * update (it runs on the same cores); the database is analyzed after seeding, as one serving for
 * more than a minute would be.
 * With `--activities N` (the scale curve: updates spread over N live activities instead of 200)
 * only Islet is measured: `{"api_update_10k_live_rps", "api_update_10k_live_p50_ms", "…_p99_ms", "…_cpu_us"}`.
 *   bun scripts/bench/api-update.ts [--runs 3] [--seconds 5] [--binary dist/islet] [--activities 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnServer } from '../../src/test-support/spawn-server';
import { runLoad, type LoadResult } from './load';
import { median, round, threadCpuUs } from './stats';
import { analyzeBenchDatabase, benchDatabase, benchPostgresCpuUs, benchPostgresDatabase, keyed, stopBenchPostgres } from './postgres-target';
import { updateScript, wrkLoad } from './wrk';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    binary: { type: 'string' },
    activities: { type: 'string', default: '200' },
    database: { type: 'string' },
  },
});
const DATABASE = benchDatabase(values.database);
const RUNS = Number(values.runs);
const DURATION_MS = Number(values.seconds) * 1000;
const CONCURRENCY = 50;
const ACTIVITIES = Number(values.activities);
/** With many activities live (the scale curve) only Islet is measured: the baselines do not depend on it. */
const SCALE = ACTIVITIES !== 200 ? `${ACTIVITIES / 1000}k` : undefined;
const KEY = 'sk_bench_api_update';

const dir = mkdtempSync(join(tmpdir(), 'islet-bench-api-'));
const databaseUrl = DATABASE === 'postgres' ? await benchPostgresDatabase() : undefined;
const server = await spawnServer(
  dir,
  `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "bench"\n[database]\npath = "${join(dir, 'islet.db')}"\n` +
    `[plans.bench]\nlive_activities = true\n[[apps]]\nid = "bench"\nplan = "bench"\napp_secret = "${KEY}"\n`,
  values.binary ? [values.binary] : undefined,
  { env: databaseUrl ? { ISLET_DATABASE_URL: databaseUrl } : {} },
);
const headers = { 'x-service-key': KEY, 'content-type': 'application/json' };
const bare = Bun.spawn([process.execPath, join(import.meta.dir, 'bare-elysia.ts')], { stdout: 'pipe', stderr: 'inherit' });
let durable: Bun.Subprocess<Blob, 'pipe', 'inherit'> | undefined;

try {
  for (let i = 0; i < ACTIVITIES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, ACTIVITIES - i) }, (_, j) =>
        fetch(`${server.url}/api/apps/bench/devices`, { method: 'POST', headers, body: JSON.stringify({ endUserId: `u${i + j}`, platform: 'android', token: `t${i + j}` }) }),
      ),
    );
  }
  const started = await fetch(`${server.url}/api/apps/bench/live-activities`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } }),
  });
  const ids = ((await started.json()) as { activities: { id: string }[] }).activities.map((a) => a.id);
  if (ids.length !== ACTIVITIES) throw new Error(`expected ${ACTIVITIES} activities, got ${ids.length}`);
  if (databaseUrl) await analyzeBenchDatabase(databaseUrl);
  // The durable baseline updates rows with the same ids, in a database file of its own.
  durable = Bun.spawn([process.execPath, join(import.meta.dir, 'bare-elysia.ts'), '--durable', join(dir, 'baseline.db')], {
    stdin: new Blob([JSON.stringify(ids)]),
    stdout: 'pipe',
    stderr: 'inherit',
  });
  // bare-elysia.ts prints one line once it listens, naming its address (a free port: benchmarks run side by side).
  const listening = async (proc: { stdout: ReadableStream<Uint8Array> }) =>
    (JSON.parse(new TextDecoder().decode((await proc.stdout.getReader().read()).value).split('\n')[0]!) as { url: string }).url;
  const bareUrl = await listening(bare);
  const durableUrl = await listening(durable);

  const body = (i: number) => JSON.stringify({ contentState: { progress: String(i % 101), detail: `step ${i}` } });
  // The same requests for wrk: PATCH bodies like `body`, the activities in turn.
  const script = updateScript(ids, KEY);
  if (!Bun.which('wrk')) console.error('wrk is not installed (apt-get install wrk): the load comes from load.ts, which leaves the server less CPU');
  /** CPU µs of the server process (all threads, and its main thread; PostgreSQL's server, on it) per request of the measured run. */
  type Measured = LoadResult & { cpuUs?: number; mainThreadCpuUs?: number; databaseCpuUs?: number };
  const load = async (origin: string, pid?: number): Promise<Measured> => {
    let cpu: { all: number; main: number; database: number } | undefined;
    const reading = () => {
      const threads = threadCpuUs(pid!);
      return { all: [...threads.values()].reduce((sum, t) => sum + t.us, 0), main: threads.get(String(pid))?.us ?? 0, database: databaseUrl ? benchPostgresCpuUs() : 0 };
    };
    const measure = pid === undefined ? undefined : () => {
      const before = reading();
      return () => {
        const after = reading();
        cpu = { all: after.all - before.all, main: after.main - before.main, database: after.database - before.database };
      };
    };
    const result =
      (await wrkLoad({ url: origin, script, connections: CONCURRENCY, durationMs: DURATION_MS, measure })) ??
      (await runLoad({
      url: (i) => `${origin}/api/apps/bench/live-activities/${ids[i % ids.length]}`,
      method: 'PATCH',
      headers,
      body,
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
      measure,
    }));
    return cpu
      ? { ...result, cpuUs: Math.round(cpu.all / result.requests), mainThreadCpuUs: Math.round(cpu.main / result.requests), ...(databaseUrl && { databaseCpuUs: Math.round(cpu.database / result.requests) }) }
      : result;
  };
  const turns: { islet: Measured; baseline?: LoadResult; durable?: LoadResult }[] = [];
  for (let run = 0; run < RUNS; run++) {
    const islet = await load(server.url, server.proc.pid);
    if (SCALE) {
      console.error(`api run ${run + 1} with ${ACTIVITIES} activities live: islet ${JSON.stringify(islet)}`);
      if (islet.errors > 0) throw new Error(`${islet.errors} updates failed`);
      turns.push({ islet });
      continue;
    }
    const baseline = await load(bareUrl);
    const durableBaseline = await load(durableUrl);
    console.error(
      `api run ${run + 1}: islet ${JSON.stringify(islet)}; bare elysia ${JSON.stringify(baseline)}; bare elysia + SQLite write ${JSON.stringify(durableBaseline)}`,
    );
    if (islet.errors > 0) throw new Error(`${islet.errors} updates failed`);
    if (durableBaseline.errors > 0) throw new Error(`${durableBaseline.errors} baseline updates failed`);
    turns.push({ islet, baseline, durable: durableBaseline });
  }
  const figures = SCALE
    ? {
        [`api_update_${SCALE}_live_rps`]: median(turns.map((t) => t.islet.rps)),
        [`api_update_${SCALE}_live_p50_ms`]: median(turns.map((t) => t.islet.p50Ms)),
        [`api_update_${SCALE}_live_p99_ms`]: median(turns.map((t) => t.islet.p99Ms)),
        [`api_update_${SCALE}_live_cpu_us`]: median(turns.map((t) => t.islet.cpuUs!)),
      }
    : {
        api_update_rps: median(turns.map((t) => t.islet.rps)),
        api_update_p50_ms: median(turns.map((t) => t.islet.p50Ms)),
        api_update_p99_ms: median(turns.map((t) => t.islet.p99Ms)),
        api_update_cpu_us: median(turns.map((t) => t.islet.cpuUs!)),
        api_update_main_thread_cpu_us: median(turns.map((t) => t.islet.mainThreadCpuUs!)),
        api_baseline_rps: median(turns.map((t) => t.baseline!.rps)),
        api_ratio: round(median(turns.map((t) => t.islet.rps / t.baseline!.rps)), 2),
        api_durable_baseline_rps: median(turns.map((t) => t.durable!.rps)),
        api_durable_baseline_p99_ms: median(turns.map((t) => t.durable!.p99Ms)),
        api_durable_ratio: round(median(turns.map((t) => t.islet.rps / t.durable!.rps)), 2),
        ...(databaseUrl ? { api_update_database_cpu_us: median(turns.map((t) => t.islet.databaseCpuUs!)) } : {}),
      };
  console.log(JSON.stringify(keyed(figures, DATABASE)));
} finally {
  bare.kill();
  durable?.kill();
  await server.stop();
  await stopBenchPostgres();
  rmSync(dir, { recursive: true, force: true });
}
