import { afterEach, describe, expect, test } from 'bun:test';
import { activityContent, addActivity, addDevice, deliveryRows, notificationContent, queue } from '../../test-support/delivery-fixtures';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { createHarness, type Harness } from '../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from './delivery.engine';

let h: Harness;
let fcm: FcmStandin;
let engine: DeliveryEngine;
afterEach(async () => {
  await engine?.stop();
  await fcm?.close();
  h?.close();
});

async function setup() {
  h = createHarness();
  fcm = await startFcmStandin();
  await h.createApp({ id: 'demo' });
  await setCredentials('demo-project');
  engine = createDeliveryEngine(h.ctx, { random: () => 0.5 });
}

async function setCredentials(project: string) {
  const res = await h.admin('PUT', '/api/admin/apps/demo/fcm', { serviceAccount: fcm.serviceAccount(project), endpoint: fcm.url });
  expect(res.status).toBe(200);
}

describe('delivery to FCM', () => {
  test('live activities go as data messages with string values, notifications as notification messages', async () => {
    await setup();
    const pixel = addDevice(h.ctx, 'demo', { platform: 'android', token: 'fcm-token-1' });
    const activity = addActivity(h.ctx, 'demo', { platform: 'android' });
    queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'start', { progress: '5' }), [pixel.id]);
    queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '50' }, { priority: 5, staleDate: h.clock.now() + 600_000, relevanceScore: 20, apnsTimestamp: 1_768_478_401 }), [pixel.id]);
    queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '60' }, { alert: { title: 'Half', body: 'way', sound: 'ding.caf' } }), [pixel.id]);
    queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'end', { progress: '100' }, { dismissalAt: h.clock.now() + 1000 }), [pixel.id]);
    queue(h.ctx, 'demo', { ...notificationContent('Sale', 'Today'), ttlSeconds: 86_400 }, [pixel.id]);
    await engine.drain();

    expect(fcm.requests.map((r) => r.project)).toEqual(Array(5).fill('demo-project'));
    // Sends run concurrently: find each by what it is, not by arrival order.
    const messages = fcm.requests.map((r) => r.body.message);
    const start = messages.find((m) => m.data?.event === 'start');
    const end = messages.find((m) => m.data?.event === 'end');
    const [quiet, loud] = [messages.find((m) => m.data?.contentState === '{"progress":"50"}'), messages.find((m) => m.data?.contentState === '{"progress":"60"}')];
    const alert = messages.find((m) => m.notification);
    // Messages of one activity collapse (a newer replaces an older one still undelivered); a start or end lives 12 hours.
    expect(start).toEqual({
      token: 'fcm-token-1',
      android: { priority: 'high', collapse_key: activity, ttl: '43200s' },
      data: {
        type: 'live_activity',
        event: 'start',
        activityId: activity,
        templateSlug: 'progress-bar',
        attributes: '{"label":"Upload"}',
        contentState: '{"progress":"5"}',
        timestamp: String(h.clock.now()),
        alertTitle: 'Upload',
        alertBody: 'Started',
      },
    });
    // Priority 5 is FCM's normal priority; an update lives until its stale date, else an hour.
    expect(quiet.android).toEqual({ priority: 'normal', collapse_key: activity, ttl: '600s' });
    expect(quiet.data).toMatchObject({ staleDate: String(h.clock.now() + 600_000), relevanceScore: '20', sequence: '1768478401' });
    expect(quiet.data.alertTitle).toBeUndefined();
    expect(loud.android).toEqual({ priority: 'high', collapse_key: activity, ttl: '3600s' });
    expect(loud.data).toMatchObject({ alertTitle: 'Half', alertBody: 'way', alertSound: 'ding.caf' });
    expect(end.data).toMatchObject({ event: 'end', contentState: '{"progress":"100"}', dismissalAt: String(h.clock.now() + 1000) });
    expect(end.android).toEqual({ priority: 'high', collapse_key: activity, ttl: '43200s' });
    expect(alert).toEqual({ token: 'fcm-token-1', notification: { title: 'Sale', body: 'Today' }, android: { priority: 'high', ttl: '86400s' } });
    // One OAuth exchange (at the account's token_uri, assertion verified) serves every send.
    expect(fcm.tokenExchanges).toBe(1);
    const rows = deliveryRows(h.ctx);
    expect(rows.map((r) => [r.status, r.provider])).toEqual(Array(5).fill(['delivered', 'fcm']));
    expect(rows[0]!.provider_id).toMatch(/^projects\/demo-project\/messages\/.+/);
    expect(JSON.parse(rows[4]!.sent_payload!).url).toBe(`${fcm.url}/v1/projects/demo-project/messages:send`);
  });

  test('UNREGISTERED and SENDER_ID_MISMATCH invalidate the token', async () => {
    await setup();
    const gone = addDevice(h.ctx, 'demo', { platform: 'android' });
    const foreign = addDevice(h.ctx, 'demo', { platform: 'android' });
    fcm.unregister(gone.token);
    fcm.respond((req) => (req.body.message.token === foreign.token ? { status: 403, errorCode: 'SENDER_ID_MISMATCH' } : undefined));
    queue(h.ctx, 'demo', notificationContent(), [gone.id, foreign.id]);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['dropped', 'UNREGISTERED: NOT_FOUND'],
      ['dropped', 'SENDER_ID_MISMATCH: PERMISSION_DENIED'],
    ]);
    const devices = (await h.admin('GET', '/api/admin/apps/demo/devices')).body.devices;
    expect(devices.map((d: { valid: boolean }) => d.valid)).toEqual([false, false]);
  });

  test('INVALID_ARGUMENT naming the registration token invalidates that token; any other INVALID_ARGUMENT fails the delivery with the reason', async () => {
    await setup();
    const malformed = addDevice(h.ctx, 'demo', { platform: 'android' });
    const fine = addDevice(h.ctx, 'demo', { platform: 'android' });
    fcm.malform(malformed.token);
    fcm.respond((req) => (req.body.message.notification?.title === 'bad' ? { status: 400, errorCode: 'INVALID_ARGUMENT' } : undefined));
    queue(h.ctx, 'demo', notificationContent(), [malformed.id, fine.id]);
    queue(h.ctx, 'demo', notificationContent('bad'), [fine.id]);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['dropped', 'INVALID_ARGUMENT: invalid registration token'],
      ['delivered', null],
      ['failed', 'INVALID_ARGUMENT'],
    ]);
    const devices = (await h.admin('GET', '/api/admin/apps/demo/devices')).body.devices;
    expect(Object.fromEntries(devices.map((d: { id: string; valid: boolean }) => [d.id, d.valid]))).toEqual({ [malformed.id]: false, [fine.id]: true });
  });

  test('QUOTA_EXCEEDED waits at least a minute; UNAVAILABLE backs off; INVALID_ARGUMENT is not retried', async () => {
    await setup();
    const a = addDevice(h.ctx, 'demo', { platform: 'android', token: 'quota' });
    const b = addDevice(h.ctx, 'demo', { platform: 'android', token: 'unavailable' });
    const c = addDevice(h.ctx, 'demo', { platform: 'android', token: 'invalid' });
    fcm.respond((req) => {
      const token = req.body.message.token;
      if (token === 'quota') return { status: 429, errorCode: 'QUOTA_EXCEEDED', headers: { 'retry-after': '10' } };
      if (token === 'unavailable') return { status: 503, errorCode: 'UNAVAILABLE' };
      return { status: 400, errorCode: 'INVALID_ARGUMENT' };
    });
    queue(h.ctx, 'demo', notificationContent(), [a.id, b.id, c.id]);
    const now = h.clock.now();
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.attempts, r.next_attempt_at - now])).toEqual([
      ['pending', 1, 60_000],
      ['pending', 1, 1000],
      ['failed', 1, 0],
    ]);
    fcm.respond(undefined);
    h.clock.advance(1000);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['pending', 'delivered', 'failed']);
    h.clock.advance(59_000);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['delivered', 'delivered', 'failed']);
  });

  test('a refused service account pauses the FCM channel until new credentials are set', async () => {
    await setup();
    const pixel = addDevice(h.ctx, 'demo', { platform: 'android' });
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    fcm.refuseTokens(true);
    queue(h.ctx, 'demo', notificationContent(), [pixel.id, iphone.id]);
    queue(h.ctx, 'demo', notificationContent('second'), [pixel.id]);
    await engine.drain();
    const app = (await h.admin('GET', '/api/admin/apps/demo')).body;
    expect(app.channels.fcm.status).toBe('paused');
    expect(app.channels.fcm.pausedReason).toContain('invalid_grant');
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['held', 'fcm channel paused'],
      ['delivered', null],
      ['held', 'fcm channel paused'],
    ]);
    expect(fcm.requests).toHaveLength(0);

    fcm.refuseTokens(false);
    await setCredentials('demo-project');
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(fcm.requests).toHaveLength(2);
  });
});
