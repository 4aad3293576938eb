import { afterAll, beforeAll, expect, test } from 'bun:test';
import { PhoneFleet } from '../../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../../test-support/apns-standin';
import { apnsKey } from '../../../test-support/delivery-fixtures';
import { startFcmStandin, type FcmStandin } from '../../../test-support/fcm-standin';
import { serveApp, type ServedApp } from '../../../test-support/served-app';
import { serverClient } from '../../../test-support/server-client';
import { forEachDatabase } from '../../../test-support/databases';
import { eventually, until } from '../../../test-support/eventually';
import { richTemplate } from '../../../test-support/notification-fixtures';

forEachDatabase('rich-notifications-e2e', () => {
  /**
   * Issue 36 through a real server process: templates with every notification feature reach a
   * modelled iPhone (behind the APNs stand-in) and an Android phone (the FCM stand-in's inbox) with
   * each field where Apple and Google document it, and the message id follows what they did.
   */
  const APP = 'rich';
  const SECRET = 'sk_rich_e2e_secret';
  const OTHER_SECRET = 'sk_rich_e2e_other';
  const fleet = new PhoneFleet();
  const iphone = fleet.add('iphone');
  const pixel = `fcm-pixel-${crypto.randomUUID()}`;
  const refusedPixel = `fcm-refused-${crypto.randomUUID()}`;
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let served: ServedApp;

  beforeAll(async () => {
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], phones: fleet });
    fcm = await startFcmStandin();
    // Google refuses every message to this phone (a bad message, not a dead token): the delivery fails.
    fcm.respond((req) =>
      req.body.message.token === refusedPixel
        ? { status: 400, rpcStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', violations: [{ field: 'message.android.notification.image', description: 'Invalid image' }] }
        : undefined,
    );
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more:
        `[apps.apns]\nbundle_id = "com.example.rich"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n` +
        `[[apps]]\nid = "other"\napp_secret = "${OTHER_SECRET}"\n`,
      files: { 'apns.p8': key.key, 'ca.pem': apns.ca, 'firebase.json': JSON.stringify(fcm.serviceAccount('rich-project')) },
    });
    const sync = { slug: 'sync', title: '', body: '', silent: true, data: { sync: 'inbox' }, collapseId: 'sync-{{box}}' };
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [richTemplate, sync] });
    expect(release.status).toBe(201);
    for (const [endUserId, platform, token] of [
      ['ada', 'ios', iphone.deviceToken],
      ['ada', 'android', pixel],
      ['bob', 'android', refusedPixel],
    ] as const) {
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform, token })).status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await apns?.close();
    await fcm?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
  const send = (body: Record<string, unknown>) => call('POST', `/api/apps/${APP}/notifications/send`, { targetUsers: ['ada'], ...body });
  const inbox = (token: string) => fcm.inbox(token).map((m) => m.message);

  test('a template using every field reaches the iPhone and the Android phone with each field where the platform documents it; the send adds data', async () => {
    const sent = await send({ templateSlug: 'order', variables: { order: '7', state: 'shipped', shop: 'Acme' }, data: { kind: 'refund', screen: 'orders/7' } });
    expect(sent.body).toEqual({ messageCount: 2, messageId: expect.stringMatching(/^msg_/) });
    const { messageId } = sent.body;
    await until('both phones have the notification', () => iphone.pushes.length === 1 && inbox(pixel).length === 1);

    const { headers, payload } = iphone.pushes[0]!;
    expect(headers).toMatchObject({ 'apns-push-type': 'alert', 'apns-priority': '10', 'apns-collapse-id': 'order-7', 'apns-topic': 'com.example.rich' });
    expect(Number(headers['apns-expiration'])).toBeGreaterThan(Date.now() / 1000);
    expect(payload).toEqual({
      aps: {
        alert: { title: 'Order 7', subtitle: 'From Acme', body: 'Your order is shipped' },
        sound: 'chime.caf',
        badge: 3,
        'thread-id': 'orders',
        category: 'ORDER',
        'interruption-level': 'time-sensitive',
        'relevance-score': 0.8,
        'mutable-content': 1,
      },
      // The template's data with the send's over it (kind), and what Islet adds.
      url: 'shop://orders/7',
      kind: 'refund',
      screen: 'orders/7',
      isletMessageId: messageId,
      isletImage: 'https://img.example.com/7.png',
    });
    expect(iphone.notifications).toEqual([{ title: 'Order 7', body: 'Your order is shipped' }]);

    const [android] = inbox(pixel);
    expect(android).toEqual({
      token: pixel,
      notification: { title: 'Order 7', body: 'Your order is shipped' },
      android: {
        priority: 'high',
        collapse_key: 'order-7',
        ttl: '3600s',
        notification: { sound: 'chime.caf', notification_count: 3, image: 'https://img.example.com/7.png', click_action: 'ORDER', channel_id: 'orders', tag: 'order-7' },
      },
      data: { url: 'shop://orders/7', kind: 'refund', screen: 'orders/7', isletMessageId: messageId, isletSubtitle: 'From Acme' },
    });
  }, 30_000);

  test('a silent template sends a background push to the iPhone and a data-only message to the Android phone', async () => {
    const sent = await send({ templateSlug: 'sync', variables: { box: 'inbox' } });
    expect(sent.body.messageCount).toBe(2);
    await until('both phones have the silent push', () => iphone.pushes.length === 2 && inbox(pixel).length === 2);
    const { headers, payload } = iphone.pushes[1]!;
    expect(headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5', 'apns-collapse-id': 'sync-inbox' });
    expect(payload).toEqual({ aps: { 'content-available': 1 }, sync: 'inbox', isletMessageId: sent.body.messageId });
    // Nothing shown: the phone's list of alerts did not grow.
    expect(iphone.notifications).toHaveLength(1);
    expect(inbox(pixel)[1]).toEqual({
      token: pixel,
      data: { sync: 'inbox', isletMessageId: sent.body.messageId },
      android: { priority: 'normal', collapse_key: 'sync-inbox', ttl: '2419200s' },
    });
  }, 30_000);

  test('an invalid send answers 400 naming what is wrong and nothing reaches a phone', async () => {
    const before = { ios: iphone.pushes.length, android: inbox(pixel).length };
    const tooBig = await send({ templateSlug: 'order', data: { big: 'x'.repeat(4000) } });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.detail).toMatch(/^payload exceeds 4096 bytes: \d+ bytes once rendered$/);
    expect((await send({ templateSlug: 'order', data: { aps: 'x' } })).body.detail).toBe('data key aps is reserved by APNs');
    expect((await send({ templateSlug: 'sync', badge: 2 })).status).toBe(400);
    // A later valid send is the next thing the phones get: nothing of the refused ones was queued.
    const ok = await send({ templateSlug: 'order', variables: { order: '8' } });
    await until('the valid send arrives', () => iphone.pushes.length === before.ios + 1 && inbox(pixel).length === before.android + 1);
    expect(iphone.pushes.at(-1)!.payload.isletMessageId).toBe(ok.body.messageId);
  }, 30_000);

  test("the message status counts what the stand-ins accepted and refused; another app's key cannot read it", async () => {
    const sent = await send({ templateSlug: 'order', variables: { order: '9' }, targetUsers: ['ada', 'bob'] });
    expect(sent.body.messageCount).toBe(3);
    const path = `/api/apps/${APP}/notifications/${sent.body.messageId}`;
    const counts = (sent: number, failed: number) => ({ total: sent + failed, queued: 0, held: 0, sending: 0, sent, failed, dropped: 0, superseded: 0 });
    const status = await eventually(async () => {
      const res = await call('GET', path);
      expect(res.body.deliveries).toEqual(counts(2, 1));
      return res.body;
    });
    expect(status).toEqual({
      messageId: sent.body.messageId,
      templateSlug: 'order',
      releaseVersion: 1,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      deliveries: counts(2, 1),
      platforms: { ios: counts(1, 0), android: counts(1, 1), web: counts(0, 0) },
      opened: 0,
      received: 0,
    });
    const other = { 'x-service-key': OTHER_SECRET };
    expect((await call('GET', `/api/apps/other/notifications/${sent.body.messageId}`, undefined, other)).body).toEqual({ title: 'Not Found', status: 404, detail: 'message not found' });
    expect((await call('GET', path, undefined, other)).status).toBe(401);
  }, 30_000);
});
