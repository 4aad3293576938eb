/**
 * Runs the APNs stand-in (src/test-support/apns-standin.ts) as a separate process for the
 * benchmarks and the chaos suite, follows its progress reports (how many valid requests it
 * accepted, to how many distinct tokens, and when the last one arrived) and tells it to fail.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StandinKey } from '../../src/test-support/apns-standin';
import type { FaultSettings } from '../../src/test-support/fault-injection';

export interface StandinProcess {
  /** Its process id (benchmarks read its CPU time). */
  pid: number;
  url: string;
  /** PEM of its certificate, to trust as `ca`. */
  ca: string;
  /** Valid requests accepted so far. */
  accepted(): number;
  /** Distinct device tokens among them (accepted − distinct = duplicates). */
  distinct(): number;
  /** Waits until `distinct` reaches `count` and resolves with the time (epoch ms) of the last acceptance. */
  waitForDistinct(count: number, timeoutMs: number): Promise<number>;
  /** Stops listening and drops its connections (comeBack listens again on the same port). */
  goAway(): void;
  comeBack(): void;
  /** Counts from zero again (accepted, distinct, lastAt): the same tokens in the next run count anew. */
  reset(): Promise<void>;
  /** Injected faults from now on (rate 0: none). */
  faults(settings: FaultSettings): void;
  /** Resolves with the time (epoch ms) the stand-in received its `count`-th valid request. */
  waitFor(count: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startStandinProcess(keys: StandinKey[], options: { seed?: number } = {}): Promise<StandinProcess> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../src/test-support/apns-standin.ts')], {
    env: { ...process.env, APNS_STANDIN_KEYS: JSON.stringify(keys), ...(options.seed === undefined ? {} : { APNS_STANDIN_SEED: String(options.seed) }) },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const command = (c: object) => {
    proc.stdin.write(`${JSON.stringify(c)}\n`);
    proc.stdin.flush();
  };
  const lines = readLines(proc.stdout);
  const first = await lines.next();
  if (first.done) throw new Error('the APNs stand-in exited before listening');
  const { url, ca } = JSON.parse(first.value) as { url: string; ca: string };
  let progress = { accepted: 0, distinct: 0, lastAt: 0 };
  let changed: (() => void) | undefined;
  void (async () => {
    for await (const line of lines) {
      progress = JSON.parse(line) as typeof progress;
      changed?.();
    }
  })();

  async function waitUntil(done: () => boolean, what: string, timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (performance.now() > deadline) throw new Error(`the stand-in has not ${what} in ${timeoutMs} ms (accepted ${progress.accepted}, distinct ${progress.distinct})`);
      await new Promise<void>((resolve) => {
        changed = resolve;
        setTimeout(resolve, 200);
      });
    }
    return progress.lastAt;
  }

  return {
    pid: proc.pid,
    url,
    ca,
    accepted: () => progress.accepted,
    distinct: () => progress.distinct,
    waitFor: (count, timeoutMs) => waitUntil(() => progress.accepted >= count, `accepted ${count} requests`, timeoutMs),
    waitForDistinct: (count, timeoutMs) => waitUntil(() => progress.distinct >= count, `accepted ${count} distinct tokens`, timeoutMs),
    goAway: () => command({ goAway: true }),
    comeBack: () => command({ comeBack: true }),
    faults: (settings) => command({ faults: settings }),
    async reset() {
      // The zero report comes after every report of the counts before.
      progress = { accepted: -1, distinct: -1, lastAt: 0 };
      command({ reset: true });
      await waitUntil(() => progress.accepted === 0, 'reset its counts', 10_000);
    },
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
    }
  }
}

/**
 * The configuration of a benchmark server in `dir` whose app (`fanout` unless `appId` says; plan
 * `bench`: Live Activities, no rate limit) sends to the stand-in: writes the APNs key and the
 * stand-in's CA beside it. `broadcasts`: channel management and broadcasts go to the stand-in too.
 */
export function benchConfig(
  dir: string,
  key: StandinKey & { key: string },
  standin: StandinProcess,
  appSecret: string,
  options: { broadcasts?: boolean; appId?: string } = {},
): string {
  writeFileSync(join(dir, 'apns.p8'), key.key);
  writeFileSync(join(dir, 'standin-ca.pem'), standin.ca);
  const broadcastHosts = options.broadcasts ? `channels_endpoint = "${standin.url}"\nbroadcast_endpoint = "${standin.url}"\n` : '';
  return (
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "bench"\n[database]\npath = "${join(dir, 'islet.db')}"\n` +
    `[security]\nallow_private_endpoints = true\n[plans.bench]\nlive_activities = true\n` +
    `[[apps]]\nid = "${options.appId ?? 'fanout'}"\nplan = "bench"\napp_secret = "${appSecret}"\n[apps.apns]\nbundle_id = "com.example.bench"\nteam_id = "${key.teamId}"\n` +
    `key_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${standin.url}"\n${broadcastHosts}ca_file = "standin-ca.pem"\n`
  );
}
