import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawRequest } from '../../src/test-support/raw-http';
import { spawnServer } from '../../src/test-support/spawn-server';
import { operationCases, strayCases, type FuzzTarget, type HttpCase } from './http-cases';
import { rawCases } from './raw-cases';

export interface FuzzOptions {
  /** Requests in all (HTTP cases from the OpenAPI document, stray paths and raw-socket cases). */
  requests: number;
  seed?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

export interface FuzzReport {
  requests: number;
  /** Answers ≥ 500, except Bun's own 505 to a request line in an HTTP version it does not speak. */
  status5xx: number;
  /** Bun's 505 (HTTP Version Not Supported) to the raw cases that send another version: the right answer. */
  versionRefusals505: number;
  timeouts: number;
  slowestMs: number;
  slowest: string;
  /** The deeply nested body on the unauthenticated sign-in, slowest of 20. */
  nestedBodyMs: number;
  startRssMb: number;
  peakRssMb: number;
  rssGrowthMb: number;
  aliveAfter: boolean;
  statuses: Record<string, number>;
  seed: number;
  /** Up to 10 cases answered ≥ 500 or not at all, to reproduce. */
  failures: { label: string; status: number | string; detail?: string }[];
}

const TARGET: FuzzTarget = { adminToken: 'fuzz-admin-token', appId: 'fz', serviceKey: 'sk_fuzz_service_key_0123456789abcdef' };
const TIMEOUT_MS = 5000;

/**
 * Starts a real server process, reads its OpenAPI document, and sends it `requests` requests:
 * property-based cases for every documented operation (valid, boundary and hostile bodies,
 * headers, query strings and paths), stray paths, and raw-socket cases. Watches the process's RSS.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const dir = mkdtempSync(join(tmpdir(), 'islet-fuzz-'));
  const server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\ntrusted_proxies = ["127.0.0.1"]\n` +
      `[admin]\ntoken = "${TARGET.adminToken}"\n[database]\npath = "islet.db"\n[log]\nlevel = "info"\n` +
      `[plans.pro]\nlive_activities = true\n[[apps]]\nid = "${TARGET.appId}"\napp_secret = "${TARGET.serviceKey}"\n`,
    undefined,
    // Nothing may be sent anywhere: provider endpoints stay limited to public https hosts.
    { env: { ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'false' } },
  );
  const rss = rssWatcher(server.proc.pid);
  const report: FuzzReport = {
    requests: 0,
    status5xx: 0,
    versionRefusals505: 0,
    timeouts: 0,
    slowestMs: 0,
    slowest: '',
    nestedBodyMs: 0,
    startRssMb: 0,
    peakRssMb: 0,
    rssGrowthMb: 0,
    aliveAfter: false,
    statuses: {},
    seed,
    failures: [],
  };
  const record = (label: string, status: number | undefined, ms: number, detail?: string) => {
    report.requests++;
    const key = status === undefined ? 'closed' : String(status);
    report.statuses[key] = (report.statuses[key] ?? 0) + 1;
    if (ms > report.slowestMs) {
      report.slowestMs = Math.round(ms * 10) / 10;
      report.slowest = label;
    }
    if (status === 505 && label.startsWith('raw: ')) report.versionRefusals505++;
    else if (status !== undefined && status >= 500) {
      report.status5xx++;
      if (report.failures.length < 10) report.failures.push({ label, status, detail });
    }
  };

  try {
    const doc = (await (await fetch(`${server.url}/swagger/json`)).json()) as Record<string, unknown>;
    const raws = rawCases();
    const rawShare = Math.max(raws.length, Math.floor(options.requests * 0.05));
    const nestedRuns = 20;
    const httpCount = Math.max(0, options.requests - rawShare - nestedRuns);
    const cases = fc.sample(fc.oneof({ weight: 9, arbitrary: operationCases(doc, TARGET) }, { weight: 1, arbitrary: strayCases }), { numRuns: httpCount, seed });

    const warmup = Math.min(200, cases.length);
    await runAll(cases.slice(0, warmup), options.concurrency ?? 4, (c) => sendCase(server.url, c, record));
    report.startRssMb = rss.current();
    await runAll(cases.slice(warmup), options.concurrency ?? 4, (c) => sendCase(server.url, c, record));

    for (let i = 0; i < rawShare; i++) {
      const c = raws[i % raws.length]!;
      const answer = await rawRequest(server.url, c.parts, { gapMs: c.gapMs, waitMs: c.waits ? 300 : TIMEOUT_MS });
      if (c.waits) {
        // Counted, but its wait is the client's, not an answer's time.
        record(`raw: ${c.label}`, answer.status, 0);
        continue;
      }
      const ms = answer.ms - (c.gapMs ?? 0) * (c.parts.length - 1);
      if (answer.status === undefined && !answer.closed) report.timeouts++;
      record(`raw: ${c.label}`, answer.status, ms, answer.body.slice(0, 200));
    }

    const nested = `${'['.repeat(25_000)}${']'.repeat(25_000)}`;
    for (let i = 0; i < nestedRuns; i++) {
      const started = performance.now();
      const res = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i}` }, body: nested });
      await res.text();
      const ms = performance.now() - started;
      report.nestedBodyMs = Math.max(report.nestedBodyMs, Math.round(ms * 10) / 10);
      record('nested body on POST /console/api/session', res.status, ms);
    }

    report.aliveAfter = (await fetch(`${server.url}/healthz`)).status === 200;
  } finally {
    rss.stop();
    report.peakRssMb = rss.peak();
    report.rssGrowthMb = Math.round((report.peakRssMb - report.startRssMb) * 10) / 10;
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

async function sendCase(base: string, c: HttpCase, record: (label: string, status: number | undefined, ms: number, detail?: string) => void): Promise<void> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${c.path}`, { method: c.method, headers: c.headers, body: c.body as BodyInit | undefined, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await res.text();
    record(c.label, res.status, performance.now() - started, res.status >= 500 ? text.slice(0, 200) : undefined);
  } catch (e) {
    // A client-side refusal (an invalid header value, say) sent nothing: not a server answer.
    if (e instanceof TypeError && !String(e.message).includes('fetch')) return;
    record(c.label, 'timeout' as never, performance.now() - started, String(e));
  }
}

async function runAll<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** The server process's resident memory, sampled every 100 ms (Linux /proc). */
function rssWatcher(pid: number) {
  const read = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      return Math.round((kb / 1024) * 10) / 10;
    } catch {
      return 0;
    }
  };
  let peak = read();
  const timer = setInterval(() => (peak = Math.max(peak, read())), 100);
  return { current: read, peak: () => Math.max(peak, read()), stop: () => clearInterval(timer) };
}
