/**
 * A small closed-loop load generator: `concurrency` clients, each sending its next request when
 * the previous one answered, for `durationMs` after a warm-up. Returns requests/s and latency
 * percentiles. Runs in its own process, apart from the server under test.
 */
export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runLoad(options: {
  url: (i: number) => string;
  method: string;
  headers: Record<string, string>;
  body: (i: number) => string;
  concurrency: number;
  durationMs: number;
  warmupMs?: number;
  /** Called when the measured run starts (after the warm-up); the function it returns, when it ends. */
  measure?: () => () => void;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  let measuring = false;
  let stop = false;
  const client = async () => {
    while (!stop) {
      const i = counter++;
      const started = performance.now();
      const res = await fetch(options.url(i), { method: options.method, headers: options.headers, body: options.body(i) });
      await res.arrayBuffer();
      if (!measuring) continue;
      latencies.push(performance.now() - started);
      if (res.status >= 400) errors++;
    }
  };
  const clients = Array.from({ length: options.concurrency }, client);
  await Bun.sleep(options.warmupMs ?? 1000);
  measuring = true;
  const measured = options.measure?.();
  const started = performance.now();
  await Bun.sleep(options.durationMs);
  measuring = false;
  measured?.();
  const elapsed = performance.now() - started;
  stop = true;
  await Promise.all(clients);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    rps: Math.round((latencies.length / elapsed) * 1000),
    p50Ms: Math.round(pct(0.5) * 100) / 100,
    p99Ms: Math.round(pct(0.99) * 100) / 100,
  };
}
