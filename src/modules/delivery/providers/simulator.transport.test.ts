import { afterEach, expect, test } from 'bun:test';
import { notificationContent } from '../../../test-support/delivery-fixtures';
import { activityContentOn, addActivityOn, addDeviceOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { createHarness } from '../../../test-support/harness';
import { forEachDatabase } from '../../../test-support/databases';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';

let h: DeliveryHarness;
let engine: DeliveryEngine | undefined;
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  h?.close();
});

forEachDatabase('simulator transport (apps without APNs or FCM credentials)', (database) => {
  test('records the exact request each kind of push would have been, and counts it delivered', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios', pushToStartToken: 'a'.repeat(64), environment: 'sandbox' });
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'fcm-token-1' });
    const iosActivity = await addActivityOn(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: iphone.id, token: 'b'.repeat(64) } });
    const androidActivity = await addActivityOn(h.ctx, 'demo', { platform: 'android' });
    await queueOn(h.ctx, 'demo', notificationContent('Hi', 'there'), [iphone.id, pixel.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, iosActivity, 'start'), [iphone.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, iosActivity, 'update', { progress: '60' }), [iphone.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, androidActivity, 'end', { progress: '100' }, { dismissalAt: h.clock.now() + 60_000 }), [pixel.id]);

    engine = createDeliveryEngine(h.ctx);
    expect(await engine.drain()).toBe(5);

    const rows = await deliveryRowsOn(h.ctx);
    expect(rows.map((r) => [r.status, r.provider, r.attempts])).toEqual(Array(5).fill(['delivered', 'simulator', 1]));
    expect(rows.every((r) => r.provider_id?.startsWith('sim_'))).toBe(true);
    const [iosAlert, androidAlert, start, update, end] = rows.map((r) => JSON.parse(r.sent_payload!));
    expect(iosAlert).toEqual({
      method: 'POST',
      url: `https://api.sandbox.push.apple.com/3/device/${iphone.token}`,
      headers: { 'apns-push-type': 'alert', 'apns-topic': '{bundleId}', 'apns-priority': '10' },
      body: { aps: { alert: { title: 'Hi', body: 'there' }, sound: 'default' } },
    });
    expect(androidAlert).toEqual({
      method: 'POST',
      url: 'https://fcm.googleapis.com/v1/projects/{projectId}/messages:send',
      headers: { 'content-type': 'application/json' },
      body: { message: { token: 'fcm-token-1', notification: { title: 'Hi', body: 'there' }, android: { priority: 'high' } } },
    });
    expect(start.url).toBe(`https://api.sandbox.push.apple.com/3/device/${'a'.repeat(64)}`);
    expect(start.headers['apns-topic']).toBe('{bundleId}.push-type.liveactivity');
    expect(start.body.aps).toMatchObject({ event: 'start', 'attributes-type': 'IsletActivityAttributes', attributes: { activityId: iosActivity } });
    expect(update.url).toBe(`https://api.sandbox.push.apple.com/3/device/${'b'.repeat(64)}`);
    expect(update.body.aps).toEqual({ event: 'update', timestamp: Math.floor(h.clock.now() / 1000), 'content-state': { progress: '60' } });
    expect(end.body.message.data).toMatchObject({ type: 'live_activity', event: 'end', contentState: '{"progress":"100"}' });
    expect(Object.values(end.body.message.data).every((v) => typeof v === 'string')).toBe(true);
  });

  test('an iOS update before the activity token is known still shows what would be sent', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'ios' });
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update'), [iphone.id]);
    engine = createDeliveryEngine(h.ctx);
    await engine.drain();
    const [row] = await deliveryRowsOn(h.ctx);
    expect(row!.status).toBe('delivered');
    expect(JSON.parse(row!.sent_payload!).url).toBe('https://api.push.apple.com/3/device/{activity-push-token}');
  });
});

forEachDatabase('a running engine', (database) => {
  test('starts on queued work at once instead of waiting for its next poll', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'fcm-token-1' });
    // A poll an hour away: only the wake-up on enqueue can get this delivered.
    engine = createDeliveryEngine(h.ctx, { pollMs: 3_600_000 });
    engine.start();
    await Bun.sleep(50); // the first (empty) drain has run and the worker sleeps
    await queueOn(h.ctx, 'demo', notificationContent('Hi', 'there'), [pixel.id]);
    for (let i = 0; i < 200 && (await deliveryRowsOn(h.ctx))[0]?.status !== 'delivered'; i++) await Bun.sleep(25);
    expect((await deliveryRowsOn(h.ctx))[0]?.status).toBe('delivered');
  });
});
