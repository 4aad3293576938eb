import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { forEachDatabase } from '../../../test-support/databases';
import { until } from '../../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../../test-support/fcm-standin';
import { serveApp, type ServedApp } from '../../../test-support/served-app';
import { serverClient } from '../../../test-support/server-client';

forEachDatabase('notification-receipts-e2e', () => {
  /**
   * Issue 48 item 4 through a real server process: an Android phone (the FCM stand-in's inbox) gets
   * a notification and, in `onMessageReceived`, reports it received signed as its end user, as the
   * device contract shows; the status and the list count it once.
   */
  const APP = 'receipts';
  const SECRET = 'sk_receipts_e2e_secret';
  const SIGNING = 'ss_receipts_e2e_signing_secret';
  const pixel = `fcm-pixel-${crypto.randomUUID()}`;
  let fcm: FcmStandin;
  let served: ServedApp;
  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
  const signed = (endUserId: string, secret = SIGNING) => ({ 'x-end-user-signature': createHmac('sha256', secret).update(endUserId).digest('hex') });

  beforeAll(async () => {
    fcm = await startFcmStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more: `signing_secret = "${SIGNING}"\n[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'firebase.json': JSON.stringify(fcm.serviceAccount('receipts-project')) },
    });
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'hello', title: 'Hi', body: 'Hello' }] })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await fcm?.close();
  }, 30_000);

  test('a receipt signed by the end user counts once; a repeat answers uncounted; a wrong signature is 401', async () => {
    const registered = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'android', token: pixel }, signed('ada'));
    expect(registered.status).toBe(200);
    const deviceId = registered.body.device.id as string;
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'hello', targetUsers: ['ada'] });
    expect(sent.body.messageCount).toBe(1);
    await until('the phone has the notification', () => fcm.inbox(pixel).length === 1);
    // What onMessageReceived reads: the message id in the data of the push.
    const messageId = fcm.inbox(pixel)[0]!.message.data.isletMessageId as string;
    expect(messageId).toBe(sent.body.messageId);

    const path = `/api/apps/${APP}/notifications/${messageId}/received`;
    const wrong = await call('POST', path, { endUserId: 'ada', deviceId }, signed('ada', 'ss_not_the_secret'));
    expect(wrong).toEqual({ status: 401, body: { title: 'Unauthorized', status: 401, detail: 'invalid end user signature' } });
    expect((await call('POST', path, { endUserId: 'ada', deviceId }, signed('ada'))).body).toEqual({ success: true, counted: true });
    expect((await call('POST', path, { endUserId: 'ada', deviceId }, signed('ada'))).body).toEqual({ success: true, counted: false });
    const unknown = await call('POST', `/api/apps/${APP}/notifications/${messageId}/received`, { endUserId: 'ada', deviceId: 'dev_unknown' }, signed('ada'));
    expect(unknown).toEqual({ status: 404, body: { title: 'Not Found', status: 404, detail: 'message was not sent to this device' } });

    const status = await call('GET', `/api/apps/${APP}/notifications/${messageId}`);
    expect(status.body).toMatchObject({ messageId, received: 1, opened: 0, deliveries: { total: 1, sent: 1 } });
    expect((await call('GET', `/api/apps/${APP}/notifications`)).body.messages).toMatchObject([{ messageId, received: 1, opened: 0 }]);
  }, 60_000);
});
