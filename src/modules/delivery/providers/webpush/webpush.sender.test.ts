import { afterEach, describe, expect, test } from 'bun:test';
import { systemClock } from '../../../../lib/clock';
import { closedPort } from '../../../../test-support/closed-port';
import { startWebPushStandin, type PushSubscriptionJSON, type WebPushStandin } from '../../../../test-support/webpush-standin';
import { MAX_PLAINTEXT_BYTES } from './webpush.encryption';
import { readAtMost, WebPushSender, type WebPushRequest } from './webpush.sender';
import { generateVapidKeys } from './webpush.vapid';

const keys = generateVapidKeys();
const vapid = { keys, subject: 'mailto:ops@example.com' };
const open = { allowPrivate: true };
let standin: WebPushStandin;
let sender: WebPushSender;
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(async () => {
  await sender?.close();
  await standin?.close();
  for (const s of servers.splice(0)) await s.stop(true);
});

const subscription = (json: PushSubscriptionJSON) => ({
  endpoint: json.endpoint,
  p256dh: Buffer.from(json.keys.p256dh, 'base64url'),
  auth: Buffer.from(json.keys.auth, 'base64url'),
});
const push = (json: PushSubscriptionJSON, extra: Partial<WebPushRequest> = {}): WebPushRequest => ({
  appId: 'app_1',
  subscription: subscription(json),
  vapid,
  payload: JSON.stringify({ web_push: 8030, notification: { title: 'Goal', navigate: 'https://example.com/' } }),
  ...extra,
});

describe('WebPushSender against the Web Push stand-in', () => {
  test('a push arrives encrypted with every header, and the browser decrypts the payload', async () => {
    standin = await startWebPushStandin();
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    const browser = standin.subscribe({ applicationServerKey: keys.publicKey });
    const outcome = await sender.send(push(browser, { urgency: 'high', topic: 'score', ttlSeconds: 60 }));
    expect(outcome).toEqual({ kind: 'delivered' });
    const [received] = standin.requests;
    expect(received!.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '60', urgency: 'high', topic: 'score', 'content-type': 'application/octet-stream' });
    expect(received!.headers.authorization).toStartWith('vapid t=');
    expect(received!.headers.authorization).toEndWith(`, k=${keys.publicKey}`);
    expect(received!.vapid).toMatchObject({ aud: standin.url, sub: 'mailto:ops@example.com' });
    expect(standin.inbox(browser.endpoint)).toEqual([push(browser).payload]);
  });

  test('without TTL or urgency: four weeks and normal; one JWT serves every subscription of the origin', async () => {
    standin = await startWebPushStandin();
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    const browsers = [standin.subscribe(), standin.subscribe(), standin.subscribe()];
    const outcomes = await Promise.all(browsers.map((b) => sender.send(push(b))));
    expect(outcomes.every((o) => o.kind === 'delivered')).toBe(true);
    expect(standin.requests.map((r) => [r.headers.ttl, r.headers.urgency, r.headers.topic])).toEqual(Array(3).fill(['2419200', 'normal', undefined]));
    expect(new Set(standin.requests.map((r) => r.headers.authorization)).size).toBe(1);
    expect(sender.vapid.signatures).toBe(1);
  });

  test('410 retires the subscription, 429 waits its Retry-After for that subscription, 5xx waits for the push service', async () => {
    standin = await startWebPushStandin();
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    const [gone, busy, failing] = [standin.subscribe(), standin.subscribe(), standin.subscribe()];
    standin.gone(gone.endpoint);
    standin.tooMany(busy.endpoint, 7);
    standin.respond((r) => (r.id === failing.endpoint.split('/').pop() ? { status: 503, headers: { 'retry-after': '3' } } : undefined));
    expect(await sender.send(push(gone))).toEqual({ kind: 'drop-token', reason: 'HTTP 410: Unregistered' });
    expect(await sender.send(push(busy))).toEqual({ kind: 'retry', reason: 'HTTP 429: TooManyRequests', afterMs: 7000, scope: 'token' });
    expect(await sender.send(push(busy))).toEqual({ kind: 'delivered' });
    expect(await sender.send(push(failing))).toEqual({ kind: 'retry', reason: 'HTTP 503', afterMs: 3000, scope: 'channel' });
  });

  test("a refusal fails with the push service's reason: another VAPID key than the subscription's", async () => {
    standin = await startWebPushStandin();
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    const browser = standin.subscribe({ applicationServerKey: generateVapidKeys().publicKey });
    expect(await sender.send(push(browser))).toEqual({ kind: 'failed', reason: 'HTTP 403: VapidPkHashMismatch' });
  });

  test('a payload over 3,993 bytes fails naming its size and nothing is sent', async () => {
    standin = await startWebPushStandin();
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    const outcome = await sender.send(push(standin.subscribe(), { payload: 'x'.repeat(MAX_PLAINTEXT_BYTES + 7) }));
    expect(outcome).toEqual({ kind: 'failed', reason: 'the Web Push payload is 4000 bytes; at most 3993 fit in one 4096-byte record' });
    expect(standin.requests).toEqual([]);
  });

  test('a loopback endpoint is refused at send without [security] allow_private_endpoints, and nothing is sent', async () => {
    standin = await startWebPushStandin();
    sender = new WebPushSender({ clock: systemClock });
    const outcome = await sender.send(push(standin.subscribe()));
    expect(outcome.kind).toBe('failed');
    expect((outcome as { reason: string }).reason).toStartWith('subscription endpoint must not be a loopback address');
    expect(standin.requests).toEqual([]);
  });

  test('a redirect is not followed', async () => {
    standin = await startWebPushStandin();
    const browser = standin.subscribe();
    const redirector = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('', { status: 307, headers: { location: browser.endpoint } }) });
    servers.push(redirector);
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    const outcome = await sender.send(push({ ...browser, endpoint: `http://127.0.0.1:${redirector.port}/push/x` }));
    expect(outcome).toEqual({ kind: 'failed', reason: 'HTTP 307 (redirect not followed)' });
    expect(standin.requests).toEqual([]);
  });

  test('a huge answer is read only to 4 KB, and only safe text of it is kept', async () => {
    const page = `<html>${'secret '.repeat(200_000)}</html>`;
    const noisy = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(page, { status: 400 }) });
    servers.push(noisy);
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    standin = await startWebPushStandin();
    const outcome = (await sender.send(push({ ...standin.subscribe(), endpoint: `http://127.0.0.1:${noisy.port}/push/x` }))) as { kind: string; reason: string };
    expect(outcome.kind).toBe('failed');
    expect(outcome.reason).toStartWith('HTTP 400: ?html?secret secret');
    expect(outcome.reason.length).toBeLessThanOrEqual('HTTP 400: '.length + 100);
  });

  test('an endless answer is not read past 4 KB', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024).fill(120));
      },
    });
    expect(await readAtMost(new Response(endless), 4096)).toBe('x'.repeat(4096));
    expect(pulled).toBeLessThanOrEqual(6);
  });

  test('an answer whose Content-Length fits is read whole; one that claims more than 4 KB is still cut at 4 KB', async () => {
    expect(await readAtMost(new Response('', { status: 201, headers: { 'content-length': '0' } }), 4096)).toBe('');
    expect(await readAtMost(new Response('{"reason":"BadJwtToken"}', { headers: { 'content-length': '24' } }), 4096)).toBe('{"reason":"BadJwtToken"}');
    expect(await readAtMost(new Response('abcdef', { headers: { 'content-length': '6' } }), 4)).toBe('abcd');
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024).fill(121));
      },
    });
    expect(await readAtMost(new Response(endless, { headers: { 'content-length': '999999' } }), 4096)).toBe('y'.repeat(4096));
    expect(pulled).toBeLessThanOrEqual(6);
  });

  test('no answer (connection refused) is unreachable: sent again later', async () => {
    sender = new WebPushSender({ clock: systemClock, outbound: open });
    standin = await startWebPushStandin();
    const outcome = await sender.send(push({ ...standin.subscribe(), endpoint: `http://127.0.0.1:${closedPort()}/push/x` }));
    expect(outcome.kind).toBe('unreachable');
  });
});
