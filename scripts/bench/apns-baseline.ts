/**
 * The fan-out baseline: a bare `node:http2` client loop, no database and no queue, sending N APNs
 * requests (the headers and payload Islet sends) to the stand-in over the same connection layout
 * Islet's APNs client uses (APNS_MAX_CONNECTIONS connections, up to APNS_STREAMS_PER_CONNECTION
 * streams in flight on each, within the server's SETTINGS): the ceiling a sender reaches against
 * this stand-in on this machine. Reads its job as JSON on stdin `{url, ca, authorization, headers, body, n}`;
 * prints `{"baseline_per_s", "cpu_us_per_request", "n", "ms"}`.
 */
import { randomBytes } from 'node:crypto';
import http2, { type ClientHttp2Session } from 'node:http2';
import { APNS_MAX_CONNECTIONS, APNS_STREAMS_PER_CONNECTION } from '../../src/modules/delivery/providers/apns/apns.client';

const job = (await Bun.stdin.json()) as { url: string; ca: string; authorization: string; headers: Record<string, string>; body: string; n: number };
const tokens = Array.from({ length: job.n }, () => randomBytes(32).toString('hex'));
const connect = () =>
  new Promise<{ session: ClientHttp2Session; streams: number }>((resolve, reject) => {
    const session = http2.connect(job.url, { ca: [job.ca], servername: 'localhost' });
    session.once('remoteSettings', (s) => resolve({ session, streams: Math.min(s.maxConcurrentStreams ?? 1000, APNS_STREAMS_PER_CONNECTION) }));
    session.once('error', reject);
  });
const connections = await Promise.all(Array.from({ length: APNS_MAX_CONNECTIONS }, connect));

let next = 0;
let done = 0;
let failed = 0;
const cpuBefore = process.cpuUsage();
const started = performance.now();
await new Promise<void>((resolve) => {
  const send = (session: ClientHttp2Session) => {
    const stream = session.request({ ':method': 'POST', ':path': `/3/device/${tokens[next++]}`, authorization: job.authorization, ...job.headers });
    stream.on('response', (h) => {
      if (h[':status'] !== 200) failed++;
    });
    stream.on('data', () => {});
    stream.on('error', () => failed++);
    stream.on('close', () => {
      if (++done === job.n) resolve();
      else if (next < job.n) send(session);
    });
    stream.end(job.body);
  };
  for (const { session, streams } of connections) for (let i = 0; i < streams && next < job.n; i++) send(session);
});
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
for (const { session } of connections) session.close();
if (failed > 0) throw new Error(`${failed} of ${job.n} baseline requests failed`);
console.log(JSON.stringify({ baseline_per_s: Math.round(job.n / (ms / 1000)), cpu_us_per_request: Math.round((cpu.user + cpu.system) / job.n), n: job.n, ms: Math.round(ms) }));
