import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { startFcmStandin, type FcmStandin } from '../../../test-support/fcm-standin';
import { serveApp, type ServedApp } from '../../../test-support/served-app';
import { serverClient } from '../../../test-support/server-client';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhook-receiver';
import { forEachDatabase } from '../../../test-support/databases';
import { eventually, until } from '../../../test-support/eventually';

forEachDatabase('notification-opens-e2e', () => {
  /**
   * Issue 38 part 3 through a real server process: an Android phone (the FCM stand-in's inbox) gets
   * a notification, reads its `isletMessageId` and reports the open signed as its end user, as the
   * device contract says; the backend's receiver verifies the `notification.opened` event.
   */
  const APP = 'opens';
  const SECRET = 'sk_opens_e2e_secret';
  const SIGNING = 'ss_opens_e2e_signing_secret';
  const pixel = `fcm-pixel-${crypto.randomUUID()}`;
  let fcm: FcmStandin;
  let receiver: WebhookReceiver;
  let served: ServedApp;

  beforeAll(async () => {
    fcm = await startFcmStandin();
    receiver = await startWebhookReceiver();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more: `signing_secret = "${SIGNING}"\n[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'firebase.json': JSON.stringify(fcm.serviceAccount('opens-project')) },
    });
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'hello', title: 'Hi', body: 'Hello' }] });
    expect(release.status).toBe(201);
    const hook = await admin('POST', `/api/admin/apps/${APP}/webhooks`, { url: receiver.url, events: ['notification.opened'] });
    expect(hook.status).toBe(201);
    receiver.secret = hook.body.secret;
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await fcm?.close();
    await receiver?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
  const signed = (endUserId: string, secret = SIGNING) => ({ 'x-end-user-signature': createHmac('sha256', secret).update(endUserId).digest('hex') });

  test('an open reported with the end user’s signature counts once and produces one signed notification.opened event; a wrong signature is 401', async () => {
    const registered = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'android', token: pixel }, signed('ada'));
    expect(registered.status).toBe(200);
    const deviceId = registered.body.device.id as string;
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'hello', targetUsers: ['ada'] });
    expect(sent.body.messageCount).toBe(1);

    // What the phone has: the message id in the data of the push Google delivered.
    await until('the phone has the notification', () => fcm.inbox(pixel).length === 1);
    const messageId = fcm.inbox(pixel)[0]!.message.data.isletMessageId as string;
    expect(messageId).toBe(sent.body.messageId);

    const path = `/api/apps/${APP}/notifications/${messageId}/opened`;
    const wrong = await call('POST', path, { endUserId: 'ada', deviceId }, signed('ada', 'ss_not_the_secret'));
    expect(wrong).toEqual({ status: 401, body: { title: 'Unauthorized', status: 401, detail: 'invalid end user signature' } });
    expect((await call('POST', path, { endUserId: 'ada', deviceId }, signed('ada'))).body).toEqual({ success: true, counted: true });
    // Tapped again (or the report retried): answered, not counted.
    expect((await call('POST', path, { endUserId: 'ada', deviceId }, signed('ada'))).body).toEqual({ success: true, counted: false });

    const status = await call('GET', `/api/apps/${APP}/notifications/${messageId}`);
    expect(status.body).toMatchObject({ messageId, opened: 1, deliveries: { total: 1 } });
    const list = await call('GET', `/api/apps/${APP}/notifications`);
    expect(list.body.messages).toMatchObject([{ messageId, opened: 1 }]);

    // The receiver verifies each post with the standardwebhooks package (signature, timestamp).
    await until('the receiver has the event', () => receiver.events.length >= 1, { timeoutMs: 15_000, intervalMs: 100 });
    expect(receiver.rejected).toEqual([]);
    expect(receiver.events.map((e) => [e.type, e.data])).toEqual([
      ['notification.opened', { messageId, endUserId: 'ada', deviceId, platform: 'android', openedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }],
    ]);
    // One event was written for the two reports: the endpoint's attempts show one post.
    const hooks = await admin('GET', `/api/admin/apps/${APP}/webhooks`);
    const hookId = hooks.body.webhooks[0].id as string;
    await eventually(async () => {
      const attempts = await admin('GET', `/api/admin/apps/${APP}/webhooks/${hookId}/attempts`);
      expect(attempts.body.attempts.map((a: { ok: boolean }) => a.ok)).toEqual([true]);
    }, { timeoutMs: 5_000, intervalMs: 50 });
    expect(receiver.events).toHaveLength(1);
  }, 60_000);
});
