import { afterEach, expect, test } from 'bun:test';
import { serviceAccountClient } from '../modules/delivery/providers/fcm/fcm.auth';
import { startFcmStandin, type FcmStandin } from './fcm-standin';

let fcm: FcmStandin;
afterEach(async () => fcm?.close());

/** Sends `message` to the stand-in as the project's service account; answers the status and google.rpc error. */
async function sender() {
  fcm = await startFcmStandin();
  const { token } = await (await serviceAccountClient(fcm.serviceAccount('p1'))).getAccessToken();
  return async (message: Record<string, unknown>) => {
    const res = await fetch(`${fcm.url}/v1/projects/p1/messages:send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: { token: 't', ...message } }),
    });
    return { status: res.status, error: ((await res.json()) as any).error };
  };
}

test('reserved data keys are refused as FCM refuses them: 400 INVALID_ARGUMENT naming the key', async () => {
  const send = await sender();
  for (const key of ['from', 'message_type', 'google.c.a.e', 'gcm.notification.title', 'googleX']) {
    const { status, error } = await send({ data: { [key]: 'x' } });
    expect(status).toBe(400);
    expect(error).toMatchObject({ status: 'INVALID_ARGUMENT', message: `Invalid data payload key: ${key}` });
  }
  // FCM itself accepts `notification` as a data key, whatever its reference says (Islet refuses it anyway).
  expect((await send({ data: { notification: 'x', url: 'app://x' } })).status).toBe(200);
}, 30_000);

test('a message over 4096 bytes is refused: "Android message is too big"', async () => {
  const send = await sender();
  const { status, error } = await send({ data: { big: 'x'.repeat(4100) } });
  expect(status).toBe(400);
  expect(error).toMatchObject({ status: 'INVALID_ARGUMENT', message: 'Android message is too big' });
  expect((await send({ data: { big: 'x'.repeat(4000) } })).status).toBe(200);
}, 30_000);

test('Android options: priority normal or high, notification_count a non-negative integer, the names strings', async () => {
  const send = await sender();
  const field = async (message: Record<string, unknown>) => (await send(message)).error?.details?.[1]?.fieldViolations?.[0]?.field;
  expect(await field({ android: { priority: 'urgent' } })).toBe('message.android.priority');
  expect(await field({ android: { notification: { notification_count: -1 } } })).toBe('message.android.notification.notification_count');
  expect(await field({ android: { notification: { notification_count: 1.5 } } })).toBe('message.android.notification.notification_count');
  expect(await field({ android: { collapse_key: 7 } })).toBe('message.android.collapse_key');
  expect(await field({ android: { notification: { channel_id: true } } })).toBe('message.android.notification.channel_id');
  const ok = await send({
    notification: { title: 'T', body: 'B' },
    android: { priority: 'normal', collapse_key: 'c', ttl: '60s', notification: { sound: 'default', notification_count: 2, image: 'https://x/y.png', click_action: 'OPEN', channel_id: 'news' } },
    data: { url: 'app://x' },
  });
  expect(ok.status).toBe(200);
}, 30_000);
