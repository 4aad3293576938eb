/**
 * Web Push sending (issue 46): one notification to N subscriptions through WebPushSender against
 * the Web Push stand-in in its own process (HTTP/1.1 on 127.0.0.1). Each push is encrypted for its subscription
 * (a fresh ECDH key and salt), signed (one JWT for the origin) and sent; a push counts when the
 * stand-in answered 201. The stand-in checks every push's headers and VAPID JWT but decrypts one
 * in `--decrypt-every` (default 100; 1: all): it shares this machine's two cores with the sender,
 * and a push service's work is not the sender's (with every body decrypted it took ~200 µs a push,
 * as much as the sender). A body it could not decrypt fails the run. Prints `webpush_per_s`, this
 * process's CPU per push (`webpush_cpu_us`: encryption, JWT, HTTP client) and the stand-in's, then
 * one JSON line.
 *   bun scripts/bench/webpush.ts [--pushes 100000] [--concurrency 64] [--decrypt-every 100]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock } from '../../src/lib/clock';
import { WebPushSender, type WebPushSubscription } from '../../src/modules/delivery/providers/webpush/webpush.sender';
import { generateVapidKeys } from '../../src/modules/delivery/providers/webpush/webpush.vapid';
import { declarativePushMessage } from '../../src/modules/web-push/web-push.payload';
import { benchSubscription, startWebPushStandin } from '../../src/test-support/webpush-standin';

const { values } = parseArgs({
  options: {
    pushes: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '64' },
    serve: { type: 'boolean', default: false },
    seed: { type: 'string' },
    key: { type: 'string' },
    'decrypt-every': { type: 'string', default: '100' },
  },
});

if (values.serve) {
  // The stand-in's role: listen, say where, and serve until stdin closes.
  const standin = await startWebPushStandin({ record: false, benchSeed: values.seed!, benchApplicationServerKey: values.key!, decryptEvery: Number(values['decrypt-every']) });
  console.log(JSON.stringify({ url: standin.url }));
  for await (const _ of Bun.stdin.stream()) void _;
  await standin.close();
  process.exit(0);
}

const PUSHES = Number(values.pushes);
const CONCURRENCY = Number(values.concurrency);
const WARMUP = Math.min(2_000, PUSHES);
const SEED = `bench-${process.pid}`;
const vapid = generateVapidKeys();

/** CPU time (user + system, all threads) of a process so far, in ms; Linux clock ticks are 10 ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const child = Bun.spawn([process.execPath, import.meta.path, '--serve', '--seed', SEED, '--key', vapid.publicKey, '--decrypt-every', values['decrypt-every']!], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });
const reader = child.stdout.getReader();
const first = new TextDecoder().decode((await reader.read()).value);
const { url } = JSON.parse(first.split('\n')[0]!) as { url: string };

const subscriptions: WebPushSubscription[] = [];
for (let i = 0; i < WARMUP + PUSHES; i++) {
  const json = benchSubscription(url, SEED, i);
  subscriptions.push({ endpoint: json.endpoint, p256dh: Buffer.from(json.keys.p256dh, 'base64url'), auth: Buffer.from(json.keys.auth, 'base64url') });
}
const payload = JSON.stringify(
  declarativePushMessage({
    title: 'Lyon 2 – 1 Nantes',
    body: 'Goal! Lacazette scores in the 78th minute.',
    navigate: 'https://example.com/matches/42',
    lang: 'en',
    badge: 1,
    messageId: 'msg_01JBENCH000000000000000000',
    data: { matchId: '42' },
  }),
);
const sender = new WebPushSender({ clock: systemClock, outbound: { allowPrivate: true }, maxConcurrent: CONCURRENCY });
const outcomes = new Map<string, number>();

/** Sends to subscriptions [from, to) with CONCURRENCY pushes in flight. */
async function run(from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const subscription = subscriptions[next++]!;
      const outcome = await sender.send({ appId: 'app_bench', subscription, vapid: { keys: vapid, subject: 'mailto:bench@example.com' }, payload, urgency: 'high' });
      const key = outcome.kind === 'delivered' ? 'delivered' : `${outcome.kind}: ${outcome.reason}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

await run(0, WARMUP);
outcomes.clear();
const cpu0 = process.cpuUsage();
const standinCpu0 = cpuMs(child.pid);
const t0 = performance.now();
await run(WARMUP, WARMUP + PUSHES);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const standinCpuMs = cpuMs(child.pid) - standinCpu0;
await sender.close();
child.stdin.end();
await child.exited;

const delivered = outcomes.get('delivered') ?? 0;
const result = {
  webpush_pushes: PUSHES,
  webpush_delivered: delivered,
  webpush_per_s: Math.round(delivered / seconds),
  webpush_cpu_us: Math.round((cpu.user + cpu.system) / PUSHES),
  webpush_standin_cpu_us: Math.round((standinCpuMs * 1000) / PUSHES),
  webpush_payload_bytes: Buffer.byteLength(payload),
  webpush_jwt_signatures: sender.vapid.signatures,
};
console.error(
  `web push: ${delivered}/${PUSHES} delivered in ${seconds.toFixed(2)} s = ${result.webpush_per_s}/s; ` +
    `CPU per push ${result.webpush_cpu_us} µs here, ${result.webpush_standin_cpu_us} µs in the stand-in; ${result.webpush_payload_bytes}-byte payload; ${result.webpush_jwt_signatures} JWT signed`,
);
for (const [kind, count] of outcomes) if (kind !== 'delivered') console.error(`  ${count} × ${kind}`);
console.log(JSON.stringify(result));
if (delivered !== PUSHES) process.exit(1);
