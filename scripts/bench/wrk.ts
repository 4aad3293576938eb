/**
 * Load with wrk (Debian: `apt-get install wrk`), a C load generator that leaves more of a 2-core
 * machine to the server than a JavaScript one: `connections` clients on two threads for
 * `durationMs` after a one-second warm-up, each request made by the Lua `script`. Returns the same
 * figures as runLoad, or undefined when wrk is not installed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './load';

export async function wrkLoad(options: {
  url: string;
  script: string;
  connections: number;
  durationMs: number;
  /** Called when the measured run starts (after the warm-up); the function it returns, when it ends. */
  measure?: () => () => void;
}): Promise<LoadResult | undefined> {
  const wrk = Bun.which('wrk');
  if (!wrk) return undefined;
  const scriptFile = join(tmpdir(), `islet-bench-wrk-${process.pid}.lua`);
  writeFileSync(scriptFile, options.script);
  const run = async (seconds: number) => {
    const proc = Bun.spawn([wrk, '-t2', `-c${options.connections}`, `-d${seconds}s`, '--latency', '-s', scriptFile, options.url], { stdout: 'pipe', stderr: 'pipe' });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${out}`);
    return out;
  };
  try {
    await run(1);
    const measured = options.measure?.();
    const out = await run(options.durationMs / 1000);
    measured?.();
    const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    if (!requests || !rps) throw new Error(`unexpected wrk output: ${out}`);
    return {
      requests,
      errors: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + socketErrors(out),
      rps: Math.round(rps),
      p50Ms: latencyMs(out, '50%'),
      p99Ms: latencyMs(out, '99%'),
    };
  } finally {
    rmSync(scriptFile, { force: true });
  }
}

/** A percentile of wrk's latency distribution (printed as 950.00us, 4.79ms or 1.20s) in ms. */
function latencyMs(out: string, percentile: string): number {
  const [, value, unit] = new RegExp(`${percentile}\\s+([\\d.]+)(us|ms|s)`).exec(out) ?? [];
  const factor = unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1;
  return Math.round(Number(value) * factor * 100) / 100;
}

function socketErrors(out: string): number {
  const counts = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return counts ? counts.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
}

/**
 * The wrk script of the update benchmarks: PATCHes of the `ids` activities in turn, each a new
 * contentState (`progress` 0-100 and a `detail` step), sent with the App Secret `key` of app `bench`.
 */
export function updateScript(ids: readonly string[], key: string): string {
  return `local ids = {${ids.map((id) => `"${id}"`).join(',')}}
local n = 0
wrk.method = "PATCH"
wrk.headers["x-service-key"] = "${key}"
wrk.headers["content-type"] = "application/json"
request = function()
  n = n + 1
  return wrk.format(nil, "/api/apps/bench/live-activities/" .. ids[n % #ids + 1], nil, '{"contentState":{"progress":"' .. n % 101 .. '","detail":"step ' .. n .. '"}}')
end
`;
}
