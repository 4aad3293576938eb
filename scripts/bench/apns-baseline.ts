/**
 * The fan-out baseline: a bare `node:http2` client loop, no database and no queue, sending N APNs
 * requests (the headers and payload Islet sends) to the stand-in over the same connection layout
 * Islet's APNs client uses (APNS_MAX_CONNECTIONS connections, up to APNS_STREAMS_PER_CONNECTION
 * streams in flight on each, within the server's SETTINGS): the ceiling a sender reaches against
 * this stand-in on this machine. Reads its job as JSON on stdin `{url, ca, authorization, headers, body, n, client?}`;
 * prints `{"baseline_per_s", "cpu_us_per_request", "n", "ms"}`. `client: "islet"` runs the same loop
 * on Islet's own HTTP/2 client (src/lib/http2) instead of node:http2 (scripts/bench/h2-client.ts
 * compares the two).
 */
import { randomBytes } from 'node:crypto';
import http2, { type ClientHttp2Session } from 'node:http2';
import { H2Connection } from '../../src/lib/http2/connection';
import { APNS_MAX_CONNECTIONS, APNS_STREAMS_PER_CONNECTION } from '../../src/modules/delivery/providers/apns/apns.client';

const job = (await Bun.stdin.json()) as { url: string; ca: string; authorization: string; headers: Record<string, string>; body: string; n: number; client?: 'node' | 'islet' };
const tokens = Array.from({ length: job.n }, () => randomBytes(32).toString('hex'));
if (job.client === 'islet') await isletLoop();
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

/** The same loop on src/lib/http2: same connections, same streams in flight, same requests. */
async function isletLoop(): Promise<never> {
  const url = new URL(job.url);
  const connections = await Promise.all(
    Array.from(
      { length: APNS_MAX_CONNECTIONS },
      () =>
        new Promise<{ connection: H2Connection; streams: number }>((resolve, reject) => {
          const connection: H2Connection = new H2Connection(
            { host: url.hostname, port: Number(url.port), servername: 'localhost', ca: job.ca },
            { settings: (max) => resolve({ connection, streams: Math.min(max ?? 1000, APNS_STREAMS_PER_CONNECTION) }), goaway: () => {}, exhausted: () => {}, error: reject, close: () => {} },
          );
        }),
    ),
  );
  let next = 0;
  let done = 0;
  let failed = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const send = (connection: H2Connection) => {
      connection.request({ ':method': 'POST', ':path': `/3/device/${tokens[next++]}`, authorization: job.authorization, ...job.headers }, job.body, 30_000).then(
        (answer) => {
          if (answer.status !== 200 && failed++ === 0) console.error(`first failure: ${answer.status} ${answer.body}`);
          if (++done === job.n) resolve();
          else if (next < job.n) send(connection);
        },
        (e: Error) => {
          if (failed++ === 0) console.error(`first failure: ${e.message}`);
          if (++done === job.n) resolve();
          else if (next < job.n) send(connection);
        },
      );
    };
    for (const { connection, streams } of connections) for (let i = 0; i < streams && next < job.n; i++) send(connection);
  });
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  for (const { connection } of connections) connection.close();
  if (failed > 0) throw new Error(`${failed} of ${job.n} requests failed`);
  console.log(JSON.stringify({ baseline_per_s: Math.round(job.n / (ms / 1000)), cpu_us_per_request: Math.round((cpu.user + cpu.system) / job.n), n: job.n, ms: Math.round(ms) }));
  process.exit(0);
}
