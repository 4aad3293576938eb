import { afterAll, beforeAll, expect, test } from 'bun:test';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';
import { forEachDatabase } from '../../test-support/databases';
import { until } from '../../test-support/eventually';
import { startWebPushStandin, type PushSubscriptionJSON, type WebPushStandin } from '../../test-support/webpush-standin';

forEachDatabase('web-push-notifications-e2e', () => {
  /**
   * Issue 46 point 4 through a real server process: what works for phones works for browsers —
   * the localization used names the notification's `lang`, an audience of `platform: "web"`
   * counts and reaches them, a scheduled send goes to them at its time or not at all once
   * cancelled, and a page's open report counts.
   */
  const APP = 'webnotes';
  const SECRET = 'sk_webnotes_e2e';
  let push: WebPushStandin;
  let served: ServedApp;
  let ada: PushSubscriptionJSON;
  let bob: PushSubscriptionJSON;
  let adaDevice: string;
  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');

  beforeAll(async () => {
    push = await startWebPushStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more: '[apps.web_push]\nsubject = "mailto:ops@example.com"\ndefault_url = "https://shop.example.com/inbox"\n',
    });
    const { publicKey } = (await call('GET', `/api/apps/${APP}/web-push/public-key`)).body;
    ada = push.subscribe({ applicationServerKey: publicKey });
    bob = push.subscribe({ applicationServerKey: publicKey });
    const registered = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'web', subscription: ada, locale: 'de-AT' });
    expect(registered.status).toBe(200);
    adaDevice = registered.body.device.id;
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'bob', platform: 'web', subscription: bob })).status).toBe(200);
    // An Android phone (the simulator sends for it: the app has no FCM), which a web audience leaves out.
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'cyd', platform: 'android', token: 'fcm-cyd' })).status).toBe(200);
    const templates = [{ slug: 'ready', title: 'Order {{order}} ready', body: 'Come and get it.', localizations: { de: { title: 'Bestellung {{order}} fertig' } } }];
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await push?.close();
  }, 30_000);

  const status = async (messageId: string) => (await call('GET', `/api/apps/${APP}/notifications/${messageId}`)).body;
  const last = (endpoint: string) => JSON.parse(push.inbox(endpoint).at(-1)!).notification;

  test("the localization a device's locale chose names the notification's lang; the template's own text names none", async () => {
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'ready', variables: { order: '7' }, targetUsers: ['ada', 'bob'] });
    expect(sent.body.messageCount).toBe(2);
    await until('both browsers have it', () => push.inbox(ada.endpoint).length === 1 && push.inbox(bob.endpoint).length === 1);
    expect(last(ada.endpoint)).toMatchObject({ title: 'Bestellung 7 fertig', body: 'Come and get it.', lang: 'de' });
    expect(last(bob.endpoint).title).toBe('Order 7 ready');
    expect(last(bob.endpoint)).not.toHaveProperty('lang');
    await until('the status counts both under web', async () => (await status(sent.body.messageId)).platforms.web.sent === 2);
  });

  test('an audience of platform web counts and reaches only the browsers', async () => {
    const audience = { platform: 'web' };
    expect((await call('POST', `/api/apps/${APP}/notifications/audience-count`, { audience })).body).toEqual({ devices: 2, users: 2 });
    expect((await admin('GET', `/api/admin/apps/${APP}/audience`)).body).toMatchObject({ devices: 3, web: 2, android: 1 });
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'ready', variables: { order: '8' }, audience });
    expect(sent.body.messageCount).toBe(2);
    await until('the status says both sent', async () => (await status(sent.body.messageId)).platforms.web.sent === 2);
    expect((await status(sent.body.messageId)).platforms).toMatchObject({ android: { total: 0 }, ios: { total: 0 }, web: { total: 2 } });
    expect(last(bob.endpoint).title).toBe('Order 8 ready');
    const deliveries = await admin('GET', `/api/admin/apps/${APP}/deliveries?messageId=${sent.body.messageId}`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.deliveries.map((d: { platform: string; provider: string }) => [d.platform, d.provider])).toEqual([['web', 'webpush'], ['web', 'webpush']]);
  });

  test('a scheduled send reaches the browser at its time; a cancelled one never does', async () => {
    const before = push.inbox(bob.endpoint).length;
    const later = await call('POST', `/api/apps/${APP}/notifications/send`, {
      templateSlug: 'ready', variables: { order: 'cancelled' }, targetUsers: ['bob'], sendAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(later.status).toBe(200);
    expect((await call('DELETE', `/api/apps/${APP}/notifications/${later.body.messageId}`)).status).toBe(200);
    const soon = await call('POST', `/api/apps/${APP}/notifications/send`, {
      templateSlug: 'ready', variables: { order: '9' }, targetUsers: ['bob'], sendAt: new Date(Date.now() + 2_000).toISOString(),
    });
    expect((await status(soon.body.messageId)).schedule).toMatchObject({ scheduled: 1 });
    await until('the scheduled push arrived', () => push.inbox(bob.endpoint).length === before + 1, { timeoutMs: 20_000 });
    expect(last(bob.endpoint).title).toBe('Order 9 ready');
    await until('its status counts it under web', async () => (await status(soon.body.messageId)).platforms.web.sent === 1);
    expect((await status(later.body.messageId)).schedule).toMatchObject({ scheduled: 0, cancelled: 1 });
    expect(push.inbox(bob.endpoint).map((p) => JSON.parse(p).notification.title)).not.toContain('Order cancelled ready');
  }, 30_000);

  test("a page reports the open with the message id its notification carries; the status counts it", async () => {
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'ready', variables: { order: '10' }, targetUsers: ['ada'] });
    await until('the browser has it', () => last(ada.endpoint).title === 'Bestellung 10 fertig');
    const messageId = last(ada.endpoint).data.isletMessageId;
    expect(messageId).toBe(sent.body.messageId);
    expect((await call('POST', `/api/apps/${APP}/notifications/${messageId}/opened`, { endUserId: 'ada', deviceId: adaDevice })).body).toEqual({ success: true, counted: true });
    expect((await status(messageId)).opened).toBe(1);
  });
});
