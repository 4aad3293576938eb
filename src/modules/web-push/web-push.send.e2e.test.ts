import { afterAll, beforeAll, expect, test } from 'bun:test';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';
import { forEachDatabase } from '../../test-support/databases';
import { until } from '../../test-support/eventually';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { startWebPushStandin, type PushSubscriptionJSON, type WebPushStandin } from '../../test-support/webpush-standin';

forEachDatabase('web-push-send-e2e', () => {
  /**
   * Issue 46 point 3 through a real server process: a notification send reaches browsers behind
   * the Web Push stand-in (which enforces RFC 8030/8291/8292 and Apple's rules, and decrypts), with
   * every header; a silent template skips them with a reason; 429 is retried; 410 retires the
   * subscription.
   */
  const APP = 'webshop';
  const SECRET = 'sk_webshop_e2e';
  let push: WebPushStandin;
  let receiver: WebhookReceiver;
  let served: ServedApp;
  let browser: PushSubscriptionJSON;
  let gone: PushSubscriptionJSON;
  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');

  beforeAll(async () => {
    push = await startWebPushStandin();
    receiver = await startWebhookReceiver();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more: '[apps.web_push]\nsubject = "mailto:ops@example.com"\ndefault_url = "https://shop.example.com/inbox"\n',
    });
    const hook = await admin('POST', `/api/admin/apps/${APP}/webhooks`, { url: receiver.url, events: ['device.token_invalidated'] });
    expect(hook.status).toBe(201);
    receiver.secret = hook.body.secret;
    const { publicKey } = (await call('GET', `/api/apps/${APP}/web-push/public-key`)).body;
    browser = push.subscribe({ applicationServerKey: publicKey });
    gone = push.subscribe({ applicationServerKey: publicKey });
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'web', subscription: browser })).status).toBe(200);
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'bob', platform: 'web', subscription: gone })).status).toBe(200);
    const templates = [
      { slug: 'shipped', title: 'Order {{order}} shipped', body: 'It arrives {{eta}}.', badge: 2, collapseId: 'order-{{order}}', url: 'https://shop.example.com/orders/{{order}}', data: { screen: 'orders' } },
      { slug: 'sync', title: '', body: '', silent: true, data: { sync: 'inbox' } },
    ];
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await push?.close();
    await receiver?.close();
  }, 30_000);

  const status = async (messageId: string) => (await call('GET', `/api/apps/${APP}/notifications/${messageId}`)).body;

  test('a send reaches the browser as Declarative Web Push JSON, encrypted, with TTL, Urgency, Topic and VAPID; the status counts it under platforms.web', async () => {
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'shipped', variables: { order: '7', eta: 'today' }, targetUsers: ['ada'] });
    expect(sent.status).toBe(200);
    const { messageId } = sent.body;
    await until('the browser has the push', () => push.inbox(browser.endpoint).length === 1);
    expect(JSON.parse(push.inbox(browser.endpoint)[0]!)).toEqual({
      web_push: 8030,
      notification: { title: 'Order 7 shipped', body: 'It arrives today.', navigate: 'https://shop.example.com/orders/7', data: { screen: 'orders', isletMessageId: messageId } },
      app_badge: 2,
    });
    const request = push.requests.find((r) => r.status === 201)!;
    expect(request.headers).toMatchObject({ 'content-encoding': 'aes128gcm', urgency: 'high', topic: 'order-7' });
    expect(Number(request.headers.ttl)).toBeGreaterThan(0);
    expect(request.vapid).toMatchObject({ aud: new URL(push.url).origin, sub: 'mailto:ops@example.com' });
    await until('the status says sent', async () => (await status(messageId)).platforms.web.sent === 1);
    expect((await status(messageId)).platforms).toMatchObject({ ios: { total: 0 }, android: { total: 0 }, web: { total: 1, sent: 1 } });
  });

  test('a silent template is not sent to web devices: dropped with the reason', async () => {
    const before = push.requests.length;
    const { messageId } = (await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'sync', targetUsers: ['ada'] })).body;
    await until('the delivery is dropped', async () => (await status(messageId)).platforms.web.dropped === 1);
    expect(push.requests.length).toBe(before);
  });

  test('429 is retried; 410 retires the subscription: the device shows invalid and device.token_invalidated fires', async () => {
    push.tooMany(browser.endpoint, 0, 1);
    push.gone(gone.endpoint);
    const { messageId } = (await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'shipped', variables: { order: '8', eta: 'soon' } })).body;
    await until('the browser has the retried push', () => push.inbox(browser.endpoint).length === 2, { timeoutMs: 30_000 });
    expect(push.requests.some((r) => r.status === 429)).toBe(true);
    await until('the gone subscription is invalid', async () => {
      const devices = (await admin('GET', `/api/admin/apps/${APP}/devices?endUserId=bob`)).body.devices;
      return devices[0]?.valid === false;
    });
    await until('device.token_invalidated arrived', () => receiver.events.some((e) => e.type === 'device.token_invalidated'));
    const event = receiver.events.find((e) => e.type === 'device.token_invalidated')!;
    expect(event.data).toMatchObject({ tokenKind: 'webpush_subscription', endUserId: 'bob' });
    expect(JSON.stringify(event)).not.toContain(gone.endpoint);
    // The retried push recorded sent; the gone one dropped (its token refused).
    await until('the status says one sent, one dropped', async () => {
      const web = (await status(messageId)).platforms.web;
      return web.sent === 1 && web.dropped === 1;
    });
  }, 60_000);
});
