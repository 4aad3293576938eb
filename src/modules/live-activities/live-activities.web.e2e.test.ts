import { afterAll, beforeAll, expect, test } from 'bun:test';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';
import { forEachDatabase } from '../../test-support/databases';
import { eventually, until } from '../../test-support/eventually';
import { startWebPushStandin, type PushSubscriptionJSON, type WebPushStandin } from '../../test-support/webpush-standin';

forEachDatabase('live-activities-web-e2e', () => {
  /**
   * Issue 46 point 5 through a real server process: a Live Activity reaches a browser behind the
   * Web Push stand-in as one notification (tag: the activity id) that each update replaces with
   * the template's text, and the end as the final one.
   */
  const APP = 'webla';
  const SECRET = 'sk_webla_e2e';
  let push: WebPushStandin;
  let served: ServedApp;
  let browser: PushSubscriptionJSON;
  let deviceId: string;
  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');

  beforeAll(async () => {
    push = await startWebPushStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more: 'plan = "pro"\n[apps.web_push]\nsubject = "mailto:ops@example.com"\ndefault_url = "https://shop.example.com/orders"\n',
    });
    const { publicKey } = (await call('GET', `/api/apps/${APP}/web-push/public-key`)).body;
    browser = push.subscribe({ applicationServerKey: publicKey });
    const registered = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'web', subscription: browser });
    expect(registered.status).toBe(200);
    deviceId = registered.body.device.id;
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await push?.close();
  }, 30_000);

  const shown = (i: number) => JSON.parse(push.inbox(browser.endpoint)[i]!);

  test('a start and an update reach the browser as one replaced notification, the end as the final one', async () => {
    const started = await call('POST', `/api/apps/${APP}/live-activities`, {
      templateSlug: 'status-tracker',
      attributes: { title: 'Order #1042', steps: 'Ordered,Packed,Shipped,Delivered' },
      contentState: { currentStep: '1', status: 'Packed' },
      targetUsers: ['ada'],
    });
    expect(started.status).toBe(200);
    const activity = started.body.activities[0];
    expect(activity.platform).toBe('web');
    const id: string = activity.id;
    await until('the browser shows the start', () => push.inbox(browser.endpoint).length === 1);
    expect(shown(0)).toEqual({
      web_push: 8030,
      notification: {
        title: 'Order #1042',
        body: 'Packed · 2/4',
        navigate: 'https://shop.example.com/orders',
        tag: id,
        data: { isletActivityId: id, isletActivityEvent: 'start' },
      },
    });

    const updated = await call('PATCH', `/api/apps/${APP}/live-activities/${id}`, { contentState: { currentStep: '2', status: 'On its way', eta: '14:30' } });
    expect(updated.status).toBeLessThan(300);
    await until('the browser has the update', () => push.inbox(browser.endpoint).length === 2);
    expect(shown(1).notification).toEqual({
      title: 'Order #1042',
      body: 'On its way · Shipped (3/4) · ETA 14:30',
      navigate: 'https://shop.example.com/orders',
      tag: id,
      silent: true,
      data: { isletActivityId: id, isletActivityEvent: 'update' },
    });
    const request = push.requests.filter((r) => r.status === 201).at(-1)!;
    expect(request.headers).toMatchObject({ urgency: 'high', ttl: '3600' });
    expect(request.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);

    const ended = await call('DELETE', `/api/apps/${APP}/live-activities/${id}`, { contentState: { currentStep: '3', status: 'Delivered' } });
    expect(ended.status).toBeLessThan(300);
    await until('the browser has the end', () => push.inbox(browser.endpoint).length === 3);
    expect(shown(2).notification).toMatchObject({ title: 'Order #1042', body: 'Delivered · 4/4', tag: id, data: { isletActivityEvent: 'end' } });

    // The browser may have the end before the worker has recorded the push service's answer.
    await eventually(async () => {
      const detail = (await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}`)).body;
      expect(detail.state).toBe('Ended');
      expect(detail.instances).toMatchObject([{ deviceId, platform: 'web', tokenState: 'active', lastDelivery: { status: 'sent' } }]);
    });
  }, 60_000);
});
