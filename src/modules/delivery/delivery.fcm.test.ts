import { afterEach, beforeAll, expect, test } from 'bun:test';
import { notificationContent } from '../../test-support/delivery-fixtures';
import { activityContentOn, addActivityOn, addDeviceOn, closeRigOn, deliveryRowsOn, fcmRigOn, queueOn, setFcmCredentialsOn, type DeliveryHarness } from '../../test-support/delivery-on';
import { forEachDatabase } from '../../test-support/databases';
import type { FcmStandin } from '../../test-support/fcm-standin';
import type { TestDatabase } from '../../test-support/harness';
import type { DeliveryEngine } from './delivery.engine';

let h: DeliveryHarness;
let database: TestDatabase;
let fcm: FcmStandin;
let engine: DeliveryEngine;
afterEach(() => closeRigOn({ engine, standin: fcm, h }));

async function setup() {
  ({ h, fcm, engine } = await fcmRigOn(database));
}

forEachDatabase('FCM going away and failing', (db) => {
  beforeAll(() => (database = db));
  test('an FCM outage takes the channel down without spending attempts; the first answer after it releases everything', async () => {
    ({ h, fcm, engine } = await fcmRigOn(database, { engine: { health: { downAfterMs: 0 } } }));
    const devices = await Promise.all(Array.from({ length: 10 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'android' })));
    await fcm.goAway();
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    await engine.drain();
    h.clock.advance(1000);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts])).toEqual(Array(10).fill(['held', 0]));
    const channels = (await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints;
    expect(channels).toMatchObject([{ provider: 'fcm', endpoint: fcm.url, state: 'down', held: 10 }]);

    await fcm.comeBack();
    h.clock.advance(2000);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts])).toEqual(Array(10).fill(['delivered', 1]));
    expect(new Set(fcm.requests.map((r) => r.body.message.token)).size).toBe(10);
  }, 30_000);

  test('with 30% injected 500, 503 and per-device 429 answers everything arrives and only the 429s spend attempts', async () => {
    ({ h, fcm, engine } = await fcmRigOn(database, { standin: { seed: 3 } }));
    const devices = await Promise.all(Array.from({ length: 50 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'android' })));
    fcm.faults.set({ rate: 0.3, kinds: ['internal', 'unavailable', 'too-many'], retryAfterS: 1 });
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    for (let i = 0; i < 30 && (await deliveryRowsOn(h.ctx, `status = 'delivered'`)).length < 50; i++) {
      await engine.drain();
      h.clock.advance(61_000);
    }
    const rows = (await deliveryRowsOn(h.ctx));
    expect(rows.every((r) => r.status === 'delivered')).toBe(true);
    const produced = fcm.faults.produced;
    expect(produced.internal + produced.unavailable).toBeGreaterThan(0);
    expect(produced['too-many']).toBeGreaterThan(0);
    // One attempt for the success, one for each per-device 429.
    expect(rows.reduce((sum, r) => sum + r.attempts, 0)).toBe(50 + produced['too-many']);
  });
});

forEachDatabase('delivery to FCM', (db) => {
  beforeAll(() => (database = db));
  test('live activities go as data messages with string values, notifications as notification messages', async () => {
    await setup();
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'fcm-token-1' });
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'android' });
    // Each event goes out before the next is queued: a queued update is superseded by a newer one.
    for (const content of [
      activityContentOn(h.ctx, activity, 'start', { progress: '5' }),
      activityContentOn(h.ctx, activity, 'update', { progress: '50' }, { priority: 5, staleDate: h.clock.now() + 600_000, relevanceScore: 20, apnsTimestamp: 1_768_478_401 }),
      activityContentOn(h.ctx, activity, 'update', { progress: '60' }, { alert: { title: 'Half', body: 'way', sound: 'ding.caf' } }),
      activityContentOn(h.ctx, activity, 'end', { progress: '100' }, { dismissalAt: h.clock.now() + 1000 }),
      { ...notificationContent('Sale', 'Today'), ttlSeconds: 86_400 },
    ]) {
      await queueOn(h.ctx, 'demo', content, [pixel.id]);
      await engine.drain();
    }

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
    const rows = (await deliveryRowsOn(h.ctx));
    expect(rows.map((r) => [r.status, r.provider])).toEqual(Array(5).fill(['delivered', 'fcm']));
    expect(rows[0]!.provider_id).toMatch(/^projects\/demo-project\/messages\/.+/);
    expect(JSON.parse(rows[4]!.sent_payload!).url).toBe(`${fcm.url}/v1/projects/demo-project/messages:send`);
  }, 30_000);

  test('UNREGISTERED and SENDER_ID_MISMATCH invalidate the token', async () => {
    await setup();
    const gone = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const foreign = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    fcm.unregister(gone.token);
    fcm.respond((req) => (req.body.message.token === foreign.token ? { status: 403, errorCode: 'SENDER_ID_MISMATCH' } : undefined));
    await queueOn(h.ctx, 'demo', notificationContent(), [gone.id, foreign.id]);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
      ['dropped', 'UNREGISTERED: NOT_FOUND'],
      ['dropped', 'SENDER_ID_MISMATCH: PERMISSION_DENIED'],
    ]);
    const devices = (await h.admin('GET', '/api/admin/apps/demo/devices')).body.devices;
    expect(devices.map((d: { valid: boolean }) => d.valid)).toEqual([false, false]);
  });

  test('INVALID_ARGUMENT naming the registration token invalidates that token; any other INVALID_ARGUMENT fails the delivery with the reason', async () => {
    await setup();
    const malformed = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const fine = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    fcm.malform(malformed.token);
    const violations = [{ field: 'message.notification.title', description: "Invalid value at 'message.notification.title'" }];
    fcm.respond((req) => (req.body.message.notification?.title === 'bad' ? { status: 400, errorCode: 'INVALID_ARGUMENT', violations } : undefined));
    await queueOn(h.ctx, 'demo', notificationContent(), [malformed.id, fine.id]);
    await queueOn(h.ctx, 'demo', notificationContent('bad'), [fine.id]);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
      ['dropped', 'INVALID_ARGUMENT: invalid registration token'],
      ['delivered', null],
      ['failed', "INVALID_ARGUMENT: message.notification.title: Invalid value at 'message.notification.title'"],
    ]);
    const devices = (await h.admin('GET', '/api/admin/apps/demo/devices')).body.devices;
    expect(Object.fromEntries(devices.map((d: { id: string; valid: boolean }) => [d.id, d.valid]))).toEqual({ [malformed.id]: false, [fine.id]: true });
  });

  test('UNAVAILABLE is retried without spending an attempt; project QUOTA_EXCEEDED makes the whole channel wait a minute; INVALID_ARGUMENT is not retried', async () => {
    await setup();
    const a = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'unavailable' });
    const b = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'quota' });
    const c = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'invalid' });
    const d = await addDeviceOn(h.ctx, 'demo', { platform: 'android', token: 'later' });
    fcm.respond((req) => {
      const token = req.body.message.token;
      if (token === 'unavailable') return { status: 503, errorCode: 'UNAVAILABLE' };
      if (token === 'quota') return { status: 429, errorCode: 'QUOTA_EXCEEDED', headers: { 'retry-after': '10' } };
      if (token === 'invalid') return { status: 400, errorCode: 'INVALID_ARGUMENT' };
      return undefined;
    });
    const now = h.clock.now();
    await queueOn(h.ctx, 'demo', notificationContent(), [a.id]);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts, r.next_attempt_at - now])).toEqual([['pending', 0, 500]]);
    await queueOn(h.ctx, 'demo', notificationContent(), [b.id]);
    await engine.drain();
    await queueOn(h.ctx, 'demo', notificationContent(), [c.id, d.id]);
    h.clock.advance(500);
    await engine.drain();
    // The project's quota: that delivery and everything after it on the channel wait 60 s, unsent.
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts, r.next_attempt_at - now])).toEqual([
      ['pending', 0, 60_000],
      ['pending', 0, 60_000],
      ['pending', 0, 60_000],
      ['pending', 0, 60_000],
    ]);
    expect(fcm.requests).toHaveLength(2);
    const channels = (await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints;
    expect(channels).toMatchObject([{ provider: 'fcm', state: 'degraded', reason: 'QUOTA_EXCEEDED: RESOURCE_EXHAUSTED' }]);
    fcm.respond((req) => (req.body.message.token === 'invalid' ? { status: 400, errorCode: 'INVALID_ARGUMENT' } : undefined));
    h.clock.advance(59_500);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['failed', 1],
      ['delivered', 1],
    ]);
  });

  test('a refused service account pauses the FCM channel until new credentials are set', async () => {
    await setup();
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    fcm.refuseTokens(true);
    await queueOn(h.ctx, 'demo', notificationContent(), [pixel.id, iphone.id]);
    await queueOn(h.ctx, 'demo', notificationContent('second'), [pixel.id]);
    await engine.drain();
    const app = (await h.admin('GET', '/api/admin/apps/demo')).body;
    expect(app.channels.fcm.status).toBe('paused');
    expect(app.channels.fcm.pausedReason).toContain('invalid_grant');
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
      ['held', 'fcm channel paused'],
      ['delivered', null],
      ['held', 'fcm channel paused'],
    ]);
    expect(fcm.requests).toHaveLength(0);

    fcm.refuseTokens(false);
    await setFcmCredentialsOn(h, fcm, 'demo-project');
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(fcm.requests).toHaveLength(2);
  }, 30_000);
});
