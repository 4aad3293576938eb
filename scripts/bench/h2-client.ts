/**
 * Islet's own HTTP/2 client (src/lib/http2) against Bun's node:http2, on the bare loop of
 * apns-baseline.ts: same stand-in process, same payload, same connection layout, runs alternating
 * (node, islet, node, islet, …) because the machine is shared. Prints each run, then the medians of
 * CPU µs per push and pushes/s per client.
 *   bun scripts/bench/h2-client.ts [--pairs 5] [--pushes 100000]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importPKCS8, SignJWT } from 'jose';
import { apnsRequest } from '../../src/modules/delivery/payloads';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { startStandinProcess } from './standin-process';
import { median } from './stats';

const { values } = parseArgs({ options: { pairs: { type: 'string', default: '5' }, pushes: { type: 'string', default: '100000' } } });
const key = apnsKey();
const standin = await startStandinProcess([key]);
try {
  const authorization = `bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: key.keyId }).setIssuer(key.teamId).setIssuedAt().sign(await importPKCS8(key.key, 'ES256'))}`;
  const alert = apnsRequest({ type: 'notification', templateSlug: 'welcome', releaseVersion: 1, title: 'Hello Ada', body: 'You have 3 new messages' }, 'com.example.bench');
  const job = { url: standin.url, ca: standin.ca, authorization, headers: alert.headers, body: JSON.stringify(alert.body), n: Number(values.pushes) };
  const runs: Record<'node' | 'islet', { per_s: number; cpu_us: number }[]> = { node: [], islet: [] };
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    for (const client of ['node', 'islet'] as const) {
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'apns-baseline.ts')], { stdin: new Blob([JSON.stringify({ ...job, client })]), stdout: 'pipe', stderr: 'inherit' });
      const out = await new Response(proc.stdout).text();
      if ((await proc.exited) !== 0) throw new Error(`the ${client} loop failed`);
      const result = JSON.parse(out) as { baseline_per_s: number; cpu_us_per_request: number };
      runs[client].push({ per_s: result.baseline_per_s, cpu_us: result.cpu_us_per_request });
      console.error(`pair ${pair + 1} ${client}: ${result.baseline_per_s}/s, ${result.cpu_us_per_request} µs CPU per push`);
    }
  }
  const summary = (client: 'node' | 'islet') => ({ per_s: median(runs[client].map((r) => r.per_s)), cpu_us_per_push: median(runs[client].map((r) => r.cpu_us)) });
  console.log(JSON.stringify({ node_http2: summary('node'), islet_http2: summary('islet') }));
} finally {
  await standin.stop();
}
