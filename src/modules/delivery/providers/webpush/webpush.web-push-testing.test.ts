import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { systemClock } from '../../../../lib/clock';
import { WebPushSender, type WebPushRequest } from './webpush.sender';
import { generateVapidKeys } from './webpush.vapid';

// web-push-testing (npm): a push service written by others that checks the VAPID JWT against the
// subscription's application server key and decrypts with http_ece, the outside check of ours.
const require = createRequire(import.meta.url);
const WebPushTestingServer = require('web-push-testing/src/server.js');
const { PushApiModel } = require('web-push-testing/src/PushApiModel.js');

const vapid = generateVapidKeys();
let listener: Server;
let base: string;
let sender: WebPushSender;

beforeAll(async () => {
  const model = new PushApiModel();
  const service = new WebPushTestingServer(model, 0);
  service.setRequestHandlers();
  // Its own start listens on every interface; tests stay on loopback.
  listener = service._app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  base = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  model.notifyUrl = `${base}/notify/`;
  sender = new WebPushSender({ clock: systemClock, outbound: { allowPrivate: true } });
});
afterAll(async () => {
  await sender.close();
  await new Promise((resolve) => listener.close(resolve));
});

const post = async (path: string, body: unknown) =>
  (await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;

async function subscribe(applicationServerKey = vapid.publicKey) {
  const { data } = await post('/subscribe', { userVisibleOnly: 'true', applicationServerKey });
  return data as { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string };
}

const request = (sub: Awaited<ReturnType<typeof subscribe>>, payload: string): WebPushRequest => ({
  appId: 'app_1',
  subscription: { endpoint: sub.endpoint, p256dh: Buffer.from(sub.keys.p256dh, 'base64url'), auth: Buffer.from(sub.keys.auth, 'base64url') },
  vapid: { keys: vapid, subject: 'mailto:ops@example.com' },
  payload,
  urgency: 'high',
  topic: 'score',
});

describe('web-push-testing receives what WebPushSender sends', () => {
  test('it verifies the VAPID JWT and decrypts the aes128gcm body to the payload sent', async () => {
    const sub = await subscribe();
    const payload = JSON.stringify({ web_push: 8030, notification: { title: 'Goal!', navigate: 'https://example.com/m/1', data: { isletMessageId: 'msg_1' } } });
    expect(await sender.send(request(sub, payload))).toEqual({ kind: 'delivered' });
    const { data } = await post('/get-notifications', { clientHash: sub.clientHash });
    expect(data.messages).toEqual([payload]);
  });

  test('a subscription made with another application server key refuses the push', async () => {
    const sub = await subscribe(generateVapidKeys().publicKey);
    expect(await sender.send(request(sub, '{}'))).toEqual({ kind: 'failed', reason: 'HTTP 400: Invalid Crypto-Key header sent' });
  });

  test('a JWT not signed by the key in k is refused: it checks the signature', async () => {
    const sub = await subscribe();
    const forged = { ...request(sub, '{}'), vapid: { keys: { ...generateVapidKeys(), publicKey: vapid.publicKey }, subject: 'mailto:ops@example.com' } };
    expect(await sender.send(forged)).toEqual({ kind: 'failed', reason: 'HTTP 400: Invalid authentication token supplied' });
  });

  test('an expired subscription answers 410 and the device stops being a target', async () => {
    const sub = await subscribe();
    await fetch(`${base}/expire-subscription/${sub.clientHash}`, { method: 'POST' });
    const outcome = await sender.send(request(sub, '{}'));
    expect(outcome.kind).toBe('drop-token');
  });
});
