import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { FakeClock } from '../../lib/clock';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { startWebPushStandin, type PushSubscriptionJSON, type WebPushStandin } from '../../test-support/webpush-standin';
import { expireWebSubscriptions } from '../scheduler/jobs/web-push-expiry.job';
import { retentionJob } from '../scheduler/jobs/retention.job';

const DAY = 24 * 60 * 60 * 1000;

/** Makes the browsers' keys; nothing is pushed to it. */
let browsers: WebPushStandin;
beforeAll(async () => void (browsers = await startWebPushStandin()));
afterAll(() => browsers.close());

forEachDatabase('web subscription expiry', (database) => {
  /**
   * Issue 46 point 6 on the injected clock: a subscription not registered again for the app's
   * expiry_days stops being a target (sends skip it, counts leave it out, device.token_invalidated
   * is written), and retention removes its device; registering again starts the days anew.
   */
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const register = async (endUserId: string, subscription: PushSubscriptionJSON) => {
    const res = await h.service('shop', 'POST', '/api/apps/shop/devices', { endUserId, platform: 'web', subscription });
    expect(res.status).toBe(200);
    return res.body.device.id as string;
  };
  const audience = async () => (await h.admin('GET', '/api/admin/apps/shop/audience')).body;
  const validity = async () =>
    Object.fromEntries(((await h.admin('GET', '/api/admin/apps/shop/devices')).body.devices as { endUserId: string; valid: boolean }[]).map((d) => [d.endUserId, d.valid]));

  async function setup(expiryDays?: number) {
    h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-03-01T00:00:00Z')) });
    await h.createApp({ id: 'shop' });
    const settings = { subject: 'mailto:ops@example.com', defaultUrl: 'https://shop.example.com', ...(expiryDays ? { expiryDays } : {}) };
    expect((await h.admin('PUT', '/api/admin/apps/shop/web-push', settings)).status).toBe(200);
    expect((await h.admin('POST', '/api/admin/apps/shop/releases', { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi', body: 'there' }] })).status).toBe(201);
    const hook = await h.admin('POST', '/api/admin/apps/shop/webhooks', { url: 'http://127.0.0.1:9/islet', events: ['device.token_invalidated'] });
    expect(hook.status).toBe(201);
  }

  test('a subscription not registered again for expiry_days stops being a target; registering again starts the days anew', async () => {
    await setup(30);
    const key = (await h.service('shop', 'GET', '/api/apps/shop/web-push/public-key')).body.publicKey;
    const stale = browsers.subscribe({ applicationServerKey: key });
    const renewed = browsers.subscribe({ applicationServerKey: key });
    const staleDevice = await register('ada', stale);
    await register('bob', renewed);
    expect((await h.service('shop', 'POST', '/api/apps/shop/devices', { endUserId: 'cyd', platform: 'android', token: 'fcm-cyd' })).status).toBe(200);
    h.clock.advance(10 * DAY);
    await register('bob', renewed);

    h.clock.advance(20 * DAY - 1);
    expect(await expireWebSubscriptions(h.ctx, h.clock.now())).toBe(0);
    expect(await audience()).toMatchObject({ devices: 3, web: 2 });

    h.clock.advance(1);
    expect(await expireWebSubscriptions(h.ctx, h.clock.now())).toBe(1);
    expect(await validity()).toEqual({ ada: false, bob: true, cyd: true });
    expect(await audience()).toMatchObject({ devices: 2, web: 1 });
    expect((await h.service('shop', 'POST', '/api/apps/shop/notifications/audience-count', { audience: { platform: 'web' } })).body).toEqual({ devices: 1, users: 1 });
    const sent = await h.service('shop', 'POST', '/api/apps/shop/notifications/send', { templateSlug: 'hi' });
    expect(sent.body.messageCount).toBe(2);
    const token = (await testRows<{ state: string; reason: string }>(h.ctx, "SELECT state, invalid_reason AS reason FROM tokens WHERE value = ?", [stale.endpoint]))[0];
    expect(token).toEqual({ state: 'invalid', reason: 'not registered again for 30 days ([apps.web_push] expiry_days)' });
    const events = await testRows<{ type: string; body: string }>(h.ctx, 'SELECT type, body FROM webhook_events');
    expect(events.map((e) => e.type)).toEqual(['device.token_invalidated']);
    expect(JSON.parse(events[0]!.body).data).toMatchObject({ deviceId: staleDevice, endUserId: 'ada', tokenKind: 'webpush_subscription' });
    // Once expired it stays so until the page registers it again.
    expect(await expireWebSubscriptions(h.ctx, h.clock.now())).toBe(0);

    h.clock.advance(10 * DAY);
    expect(await expireWebSubscriptions(h.ctx, h.clock.now())).toBe(1);
    await register('ada', stale);
    expect(await validity()).toEqual({ ada: true, bob: false, cyd: true });
  });

  test('retention removes the devices of subscriptions not registered again; others stay', async () => {
    await setup();
    const key = (await h.service('shop', 'GET', '/api/apps/shop/web-push/public-key')).body.publicKey;
    await register('ada', browsers.subscribe({ applicationServerKey: key }));
    expect((await h.service('shop', 'POST', '/api/apps/shop/devices', { endUserId: 'cyd', platform: 'android', token: 'fcm-cyd' })).status).toBe(200);
    h.clock.advance(59 * DAY);
    await register('bob', browsers.subscribe({ applicationServerKey: key }));
    h.clock.advance(DAY);
    await retentionJob(h.ctx).run(h.clock.now());
    const left = await testRows<{ end_user_id: string }>(h.ctx, 'SELECT end_user_id FROM devices ORDER BY end_user_id');
    expect(left.map((d) => d.end_user_id)).toEqual(['bob', 'cyd']);
    expect(await testRows(h.ctx, "SELECT id FROM tokens WHERE kind = 'webpush_subscription'")).toHaveLength(1);
  });
});
