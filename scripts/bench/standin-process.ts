/**
 * Runs the APNs stand-in (src/test-support/apns-standin.ts) as a separate process for the
 * benchmarks, and follows its progress reports: how many valid requests it accepted, and when the
 * last one arrived.
 */
import { join } from 'node:path';
import type { StandinKey } from '../../src/test-support/apns-standin';

export interface StandinProcess {
  url: string;
  /** PEM of its certificate, to trust as `ca`. */
  ca: string;
  /** Valid requests accepted so far. */
  accepted(): number;
  /** Resolves with the time (epoch ms) the stand-in received its `count`-th valid request. */
  waitFor(count: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startStandinProcess(keys: StandinKey[]): Promise<StandinProcess> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../src/test-support/apns-standin.ts')], {
    env: { ...process.env, APNS_STANDIN_KEYS: JSON.stringify(keys) },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const lines = readLines(proc.stdout);
  const first = await lines.next();
  if (first.done) throw new Error('the APNs stand-in exited before listening');
  const { url, ca } = JSON.parse(first.value) as { url: string; ca: string };
  let progress = { accepted: 0, lastAt: 0 };
  let changed: (() => void) | undefined;
  void (async () => {
    for await (const line of lines) {
      progress = JSON.parse(line) as typeof progress;
      changed?.();
    }
  })();

  return {
    url,
    ca,
    accepted: () => progress.accepted,
    async waitFor(count, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (progress.accepted < count) {
        if (performance.now() > deadline) throw new Error(`the stand-in accepted ${progress.accepted} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          changed = resolve;
          setTimeout(resolve, 200);
        });
      }
      return progress.lastAt;
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
