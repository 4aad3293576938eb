import { afterEach, beforeAll, expect, test } from 'bun:test';
import { notificationContent } from '../../../test-support/delivery-fixtures';
import { activityContentOn, addActivityOn, addDeviceOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { createHarness, type TestDatabase } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { forEachDatabase } from '../../../test-support/databases';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { unlabelled } from '../../../test-support/metrics-text';
import { deliveriesRepository } from '../worker/delivery.repository';

let h: DeliveryHarness;
let engine: DeliveryEngine;
afterEach(async () => {
  await engine?.stop();
  h?.close();
});

let database: TestDatabase;

async function setup() {
  h = await createHarness({ database });
  await h.createApp({ id: 'demo' });
  await h.createApp({ id: 'other' });
  engine = createDeliveryEngine(h.ctx);
  const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
  const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
  const activity = await addActivityOn(h.ctx, 'demo', { platform: 'android' });
  await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id, pixel.id]);
  await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'start'), [pixel.id]);
  await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update'), [{ deviceId: pixel.id, status: 'held' }]);
  return { iphone, pixel, activity };
}

forEachDatabase('admin API: deliveries', (db) => {
  beforeAll(() => (database = db));
  test("lists an app's deliveries newest first with status, attempts, provider id, reason, payload and times", async () => {
    const { iphone, pixel, activity } = await setup();
    await engine.drain();
    const res = await h.admin('GET', '/api/admin/apps/demo/deliveries');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.body.deliveries.map((d: { kind: string; status: string }) => [d.kind, d.status])).toEqual([
      ['la_update', 'held'],
      ['la_start', 'sent'],
      ['notification', 'sent'],
      ['notification', 'sent'],
    ]);
    const [held, start, , iosAlert] = res.body.deliveries;
    expect(held).toMatchObject({ activityId: activity, deviceId: pixel.id, platform: 'android', provider: null, attempts: 0, providerId: null });
    expect(held.sentPayload).toBeUndefined();
    expect(start).toMatchObject({ platform: 'android', provider: 'simulator', attempts: 1, reason: null, createdAt: '2026-01-15T12:00:00.000Z' });
    expect(start.providerId).toStartWith('sim_');
    expect(start.sentPayload.body.message.data.event).toBe('start');
    expect(iosAlert).toMatchObject({ deviceId: iphone.id, platform: 'ios', kind: 'notification' });
    expect(iosAlert.sentPayload.url).toBe(`https://api.push.apple.com/3/device/${iphone.token}`);

    const page = await h.admin('GET', '/api/admin/apps/demo/deliveries?status=sent&limit=2&offset=1');
    expect(page.body.total).toBe(3);
    // The outbox's names, which the filter took before, still work.
    expect((await h.admin('GET', '/api/admin/apps/demo/deliveries?status=delivered&limit=2&offset=1')).body).toEqual(page.body);
    expect(page.body.deliveries.map((d: { kind: string }) => d.kind)).toEqual(['notification', 'notification']);
    expect((await h.admin('GET', '/api/admin/apps/other/deliveries')).body).toEqual({ deliveries: [], total: 0 });
  });

  test('a fan-out stores its body once: on the message, left out of later deliveries that sent the same; the API shows each whole', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    engine = createDeliveryEngine(h.ctx);
    const iphones = await Promise.all([1, 2, 3].map(() => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const { messageId } = await queueOn(h.ctx, 'demo', notificationContent('Hi', 'there'), [...iphones.map((d) => d.id), pixel.id]);
    await engine.drain();

    const stored = (await deliveryRowsOn(h.ctx)).map((r) => JSON.parse(r.sent_payload!) as { url: string; body?: unknown });
    // The first iPhone's record is whole and gave the message its body; the other iPhones sent the
    // same body and leave it out; the Pixel sent another (FCM) and keeps its own.
    expect(stored.map((p) => 'body' in p)).toEqual([true, false, false, true]);
    const [message] = await testRows<{ sent_body: string }>(h.ctx, 'SELECT sent_body FROM messages WHERE id = ?', [messageId]);
    expect(JSON.parse(message!.sent_body)).toEqual(stored[0]!.body);

    const res = await h.admin('GET', '/api/admin/apps/demo/deliveries');
    const shown = (res.body.deliveries as { deviceId: string; sentPayload: { url: string; body: unknown } }[]).reverse();
    expect(shown.map((d) => d.sentPayload.body)).toEqual([stored[0]!.body, stored[0]!.body, stored[0]!.body, stored[3]!.body]);
    expect(shown.map((d) => d.sentPayload.url)).toEqual([...iphones.map((d) => `https://api.push.apple.com/3/device/${d.token}`), stored[3]!.url]);
    expect(stored[3]!.body).not.toEqual(stored[0]!.body);
  });

  test('a mixed send whose first delivery goes to Android keeps no FCM token on the message; the iPhones after the first leave the body out', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    engine = createDeliveryEngine(h.ctx);
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const iphones = await Promise.all([1, 2, 3].map(() => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    // Claimed in id order: the Pixel's delivery goes first.
    const { messageId } = await queueOn(h.ctx, 'demo', notificationContent('Hi', 'there'), [pixel.id, ...iphones.map((d) => d.id)]);
    await engine.drain();

    const stored = (await deliveryRowsOn(h.ctx)).map((r) => JSON.parse(r.sent_payload!) as { url: string; body?: { message?: { token?: string } } });
    expect(stored[0]!.body?.message?.token).toBe(pixel.token);
    expect(stored.map((p) => 'body' in p)).toEqual([true, true, false, false]);
    const [message] = await testRows<{ sent_body: string }>(h.ctx, 'SELECT sent_body FROM messages WHERE id = ?', [messageId]);
    expect(message!.sent_body).not.toContain(pixel.token);
    expect(JSON.parse(message!.sent_body)).toEqual(stored[1]!.body);
    const shown = ((await h.admin('GET', '/api/admin/apps/demo/deliveries')).body.deliveries as { sentPayload: { body: unknown } }[]).reverse();
    expect(shown.map((d) => d.sentPayload.body)).toEqual([stored[0]!.body, stored[1]!.body, stored[1]!.body, stored[1]!.body]);
  });

  test('filters by the superseded status: an update replaced by a newer one before it went', async () => {
    const { pixel, activity } = await setup();
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '90' }), [pixel.id]);
    const res = await h.admin('GET', '/api/admin/apps/demo/deliveries?status=superseded');
    expect(res.status).toBe(200);
    expect(res.body.deliveries).toMatchObject([{ kind: 'la_update', status: 'superseded', reason: 'superseded by a newer event', deviceId: pixel.id }]);
  });

  test("lists one live activity's deliveries", async () => {
    const { activity } = await setup();
    await engine.drain();
    const res = await h.admin('GET', `/api/admin/apps/demo/live-activities/${activity}/deliveries`);
    expect(res.body.total).toBe(2);
    expect(res.body.deliveries.map((d: { kind: string }) => d.kind)).toEqual(['la_update', 'la_start']);
    const missing = await h.admin('GET', '/api/admin/apps/demo/live-activities/la_nope/deliveries');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('live activity not found');
    const otherApp = await h.admin('GET', `/api/admin/apps/other/live-activities/${activity}/deliveries`);
    expect(otherApp.status).toBe(404);
  });

  test("a device's filter finds the Live Activity deliveries of activities that ran on it, also after it moved to another end user", async () => {
    const { pixel, activity } = await setup();
    await testRows(h.ctx, `INSERT INTO activity_instances (activity_id, device_id, platform, started_at) VALUES (?, ?, 'android', ?)`, [activity, pixel.id, h.clock.now()]);
    await engine.drain();
    const kinds = async (q: string) => (await h.admin('GET', `/api/admin/apps/demo/deliveries?${q}`)).body.deliveries.map((d: { kind: string }) => d.kind);
    expect(await kinds(`deviceId=${pixel.id}`)).toEqual(['la_update', 'la_start', 'notification']);
    // The same token registered again by another end user: the activity stays user-1's.
    await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: pixel.token, endUserId: 'user-2' });
    expect(await kinds(`deviceId=${pixel.id}`)).toEqual(['la_update', 'la_start', 'notification']);
    expect(await kinds('endUserId=user-2')).toEqual(['la_update', 'la_start', 'notification']);
    await testRows(h.ctx, 'DELETE FROM activity_instances');
    // Without the instance only the tokenless update is found for the device (the activity is another user's).
    expect(await kinds(`deviceId=${pixel.id}`)).toEqual(['la_update', 'notification']);
  });

  test('filters by end user, device, activity, template, kind, status, reason text and time range; total counts the matches', async () => {
    const { iphone, pixel, activity } = await setup();
    const ada = await addDeviceOn(h.ctx, 'demo', { platform: 'android', endUserId: 'ada' });
    h.clock.advance(60_000);
    await queueOn(h.ctx, 'demo', notificationContent('Later'), [ada.id]);
    await engine.drain();
    const kinds = async (q: string) => {
      const res = await h.admin('GET', `/api/admin/apps/demo/deliveries?${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
      return { total: res.body.total, rows: res.body.deliveries.map((d: { kind: string; deviceId: string }) => `${d.kind}@${d.deviceId}`) };
    };
    expect(await kinds('endUserId=ada')).toEqual({ total: 1, rows: [`notification@${ada.id}`] });
    expect((await kinds('endUserId=user-1')).total).toBe(4);
    expect(await kinds(`deviceId=${iphone.id}`)).toEqual({ total: 1, rows: [`notification@${iphone.id}`] });
    expect(await kinds(`activityId=${activity}`)).toEqual({ total: 2, rows: [`la_update@${pixel.id}`, `la_start@${pixel.id}`] });
    expect((await kinds('templateSlug=welcome')).total).toBe(3);
    expect((await kinds('templateSlug=progress-bar')).total).toBe(2);
    expect((await kinds('kind=notification&endUserId=user-1')).total).toBe(2);
    expect((await kinds('status=held')).rows).toEqual([`la_update@${pixel.id}`]);
    expect((await kinds('status=delivered&kind=la_start')).total).toBe(1);
    // The reason text, case-insensitive, with % and _ taken literally.
    await queueOn(h.ctx, 'demo', notificationContent('Refused'), [{ deviceId: ada.id, status: 'failed', reason: 'Token refused: BadDeviceToken' }]);
    expect((await kinds('reason=baddevice')).rows).toEqual([`notification@${ada.id}`]);
    expect((await kinds('reason=%25')).total).toBe(0);
    expect((await kinds('reason=_')).total).toBe(0);
    expect((await kinds('status=failed&endUserId=ada')).total).toBe(1);
    expect((await kinds('since=2026-01-15T12:00:30Z')).total).toBe(2);
    expect((await kinds('until=2026-01-15T12:00:30Z')).total).toBe(4);
    // Unix seconds too; 0 is 1970-01-01, before every delivery.
    expect((await kinds(`since=${Date.parse('2026-01-15T12:00:30Z') / 1000}`)).total).toBe(2);
    expect((await kinds('until=0')).total).toBe(0);
    expect((await kinds('since=0')).total).toBe(6);
    expect((await kinds('endUserId=nobody')).total).toBe(0);
    const bad = await h.admin('GET', '/api/admin/apps/demo/deliveries?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe('since must be an ISO 8601 date-time or Unix seconds');
  });

  test('one delivery: what was queued, the request sent, earlier attempts and its token ledger entry', async () => {
    const { pixel } = await setup();
    const repo = deliveriesRepository(h.ctx.db.sql);
    const [first] = await repo.claim(h.clock.now(), 1);
    // An attempt answered with a retry (as the worker writes it), then the delivery goes through.
    await repo.record([{ id: first!.id, status: 'pending', attempts: 1, nextAttemptAt: h.clock.now(), provider: 'simulator', providerId: null, reason: 'HTTP 503 ServiceUnavailable', holdKind: null, sentPayload: null, recordAttempt: true }], h.clock.now());
    h.clock.advance(2000);
    await engine.drain();
    const res = await h.admin('GET', `/api/admin/apps/demo/deliveries/${first!.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: first!.id, status: 'sent', attempts: 2, endUserId: 'user-1', templateSlug: 'welcome', kind: 'notification' });
    expect(res.body.content).toMatchObject({ type: 'notification', title: 'Hello', body: 'World' });
    expect(res.body.earlierAttempts).toEqual([{ attempt: 1, at: '2026-01-15T12:00:00.000Z', provider: 'simulator', providerId: null, reason: 'HTTP 503 ServiceUnavailable' }]);
    expect(res.body.sentPayload.url).toContain('/3/device/');
    expect(res.body.token).toMatchObject({ id: res.body.tokenId, kind: 'apns_device', state: 'active', invalidReason: null });
    expect(JSON.stringify(res.body.token)).not.toContain('"value"');

    const held = (await h.admin('GET', '/api/admin/apps/demo/deliveries?status=held')).body.deliveries[0];
    const heldDetail = await h.admin('GET', `/api/admin/apps/demo/deliveries/${held.id}`);
    expect(heldDetail.body).toMatchObject({ deviceId: pixel.id, earlierAttempts: [] });
    expect((await h.admin('GET', `/api/admin/apps/other/deliveries/${first!.id}`)).status).toBe(404);
    expect((await h.admin('GET', '/api/admin/apps/demo/deliveries/999999')).body.detail).toBe('delivery not found');
    expect((await h.admin('GET', '/api/admin/apps/demo/deliveries/abc')).status).toBe(400);
  });

  test('needs the admin token, a known app and valid filters', async () => {
    await setup();
    expect((await h.request('GET', '/api/admin/apps/demo/deliveries')).status).toBe(401);
    expect((await h.admin('GET', '/api/admin/apps/nope/deliveries')).body.detail).toBe('app not found');
    expect((await h.admin('GET', '/api/admin/apps/demo/deliveries?status=lost')).status).toBe(400);
    expect((await h.admin('GET', '/api/admin/apps/demo/deliveries?limit=0')).status).toBe(400);
  });
});

forEachDatabase('GET /metrics', (db) => {
  beforeAll(() => (database = db));
  test('deliveries by app, provider, kind and outcome; queue depth by app, provider and state; provider latency; channels; active activities', async () => {
    await setup();
    const before = await h.request('GET', '/metrics');
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toStartWith('text/plain; version=0.0.4');
    expect(unlabelled(before.body)).toContain('islet_delivery_queue_depth{app="demo",provider="unassigned",state="pending"} 3');
    expect(unlabelled(before.body)).toContain('islet_delivery_queue_depth{app="demo",provider="unassigned",state="held"} 1');
    await engine.drain();
    const after = unlabelled((await h.request('GET', '/metrics')).body);
    expect(after).toContain('islet_deliveries_total{app="demo",provider="simulator",kind="notification",outcome="delivered"} 2');
    expect(after).toContain('islet_deliveries_total{app="demo",provider="simulator",kind="la_start",outcome="delivered"} 1');
    expect(after).not.toContain('state="pending"');
    expect(after).toContain('islet_delivery_queue_depth{app="demo",provider="unassigned",state="held"} 1');
    expect(after).toContain('islet_provider_request_seconds_count{provider="simulator"} 3');
    expect(after).toContain('islet_live_activities_active{app="demo",platform="android"} 1');
    expect(after).toContain('islet_channel_state{app="demo",provider="apns",state="simulator"} 1');
    expect(after).toContain('islet_channel_state{app="other",provider="fcm",state="paused"} 0');
    // Requests are counted by route template, never by the path with its ids.
    expect(after).toContain('islet_http_requests_total{method="GET",route="/metrics",status="200"} 1');
    expect(after).toContain('islet_http_requests_total{method="POST",route="/api/admin/apps",status="201"} 2');
  });

  test('updates superseded when a newer one is queued count as superseded', async () => {
    const { pixel, activity } = await setup();
    const metrics = async () => unlabelled((await h.request('GET', '/metrics')).body);
    expect(await metrics()).not.toContain('outcome="superseded"');
    // The update held in setup and a pending one are replaced by the newest.
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '80' }), [pixel.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '90' }), [pixel.id]);
    expect(await metrics()).toContain('islet_deliveries_total{app="demo",provider="none",kind="la_update",outcome="superseded"} 2');
  });
});
