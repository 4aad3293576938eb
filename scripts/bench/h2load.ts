/**
 * The APNs stand-in's own ceiling, measured with h2load (Debian: `apt-get install nghttp2-client`),
 * a client much cheaper than any in Bun: N requests over the connection layout Islet uses.
 * Returns undefined, saying why, when h2load is not installed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APNS_MAX_CONNECTIONS, APNS_STREAMS_PER_CONNECTION } from '../../src/modules/delivery/providers/apns/apns.client';
import { apnsToken } from '../../src/test-support/apns-standin';

export async function h2loadCeiling(job: { url: string; authorization: string; headers: Record<string, string>; body: string; n: number }): Promise<number | undefined> {
  const h2load = Bun.which('h2load');
  if (!h2load) {
    console.error('h2load is not installed (apt-get install nghttp2-client): the stand-in ceiling is not measured');
    return undefined;
  }
  const bodyFile = join(tmpdir(), `islet-bench-h2load-${process.pid}.json`);
  writeFileSync(bodyFile, job.body);
  try {
    const headers = Object.entries({ authorization: job.authorization, ...job.headers }).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const proc = Bun.spawn([h2load, '-n', String(job.n), '-c', String(APNS_MAX_CONNECTIONS), '-m', String(APNS_STREAMS_PER_CONNECTION), '-d', bodyFile, ...headers, `${job.url}/3/device/${apnsToken()}`], { stdout: 'pipe', stderr: 'pipe' });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    const perSecond = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(out)?.[1];
    const succeeded = Number(/status codes: (\d+) 2xx/.exec(out)?.[1] ?? 0);
    if (!perSecond || succeeded !== job.n) throw new Error(`h2load did not complete: ${out.slice(-500)}`);
    return Math.round(Number(perSecond));
  } finally {
    rmSync(bodyFile, { force: true });
  }
}
