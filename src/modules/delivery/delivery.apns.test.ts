import { afterEach, describe, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { activityContent, addActivity, addDevice, deliveryRows, notificationContent, queue } from '../../test-support/delivery-fixtures';
import type { Harness } from '../../test-support/harness';
import { apnsRig, closeRig } from '../../test-support/delivery-rig';
import type { ApnsClient } from './providers/apns/apns.client';
import type { DeliveryEngine, DeliveryEngineOptions } from './delivery.engine';

let h: Harness;
let apns: ApnsStandin;
let engine: DeliveryEngine;
afterEach(() => closeRig({ engine, standin: apns, h }));

const BUNDLE = 'com.example.demo';
const MINUTE = 60_000;

/** A harness, an APNs stand-in that knows the app's key, and the app's credentials pointing at it. */
async function setup(engineOptions: DeliveryEngineOptions = {}) {
  let key;
  ({ h, apns, engine, key } = await apnsRig({ bundleId: BUNDLE, standinKnowsBundle: true, engine: engineOptions }));
  return key;
}

describe('delivery to APNs', () => {
  test('alerts, and live activity start, update and end, go with the right token, headers and aps keys', async () => {
    await setup();
    const pushToStart = apnsToken();
    const activityToken = apnsToken();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios', pushToStartToken: pushToStart });
    const activity = addActivity(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: iphone.id, token: activityToken } });
    const startedAt = h.clock.now();
    await queue(h.ctx, 'demo', notificationContent('Sale', 'Today only'), [iphone.id]);
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'start', { progress: '0' }), [iphone.id]);
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '40' }), [iphone.id]);
    expect(await engine.drain()).toBe(3);
    // Queued after the update went (queued together, the end would supersede it).
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'end', { progress: '100' }, { dismissalAt: startedAt + 12 * 60 * MINUTE }), [iphone.id]);
    expect(await engine.drain()).toBe(1);

    // Sends run concurrently: find each by what it is, not by arrival order.
    const byEvent = (event: string | undefined) => apns.requests.find((r) => r.body.aps.event === event);
    const [alert, start, update, end] = [byEvent(undefined), byEvent('start'), byEvent('update'), byEvent('end')];
    expect(apns.requests).toHaveLength(4);
    expect(alert!.token).toBe(iphone.token);
    expect(alert!.headers).toMatchObject({ 'apns-push-type': 'alert', 'apns-topic': BUNDLE, 'apns-priority': '10' });
    expect(alert!.body).toEqual({ aps: { alert: { title: 'Sale', body: 'Today only' }, sound: 'default' } });

    const seconds = Math.floor(startedAt / 1000);
    expect(start!.token).toBe(pushToStart);
    expect(start!.headers).toMatchObject({ 'apns-push-type': 'liveactivity', 'apns-topic': `${BUNDLE}.push-type.liveactivity` });
    expect(start!.body.aps).toEqual({
      timestamp: seconds,
      event: 'start',
      'content-state': { progress: '0' },
      'attributes-type': 'IsletActivityAttributes',
      attributes: { activityId: activity, templateSlug: 'progress-bar', values: { label: 'Upload' } },
      'input-push-token': 1,
      alert: { title: 'Upload', body: 'Started' },
    });
    expect(update!.token).toBe(activityToken);
    expect(update!.body.aps).toEqual({ timestamp: seconds, event: 'update', 'content-state': { progress: '40' } });
    expect(end!.token).toBe(activityToken);
    expect(end!.body.aps).toEqual({ timestamp: seconds, event: 'end', 'content-state': { progress: '100' }, 'dismissal-date': seconds + 12 * 3600 });
    expect(apns.requests.every((r) => r.keyId !== undefined)).toBe(true);

    const rows = deliveryRows(h.ctx);
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(rows.every((r) => r.provider === 'apns' && /^[0-9A-F-]{36}$/.test(r.provider_id!))).toBe(true);
    expect(JSON.parse(rows[0]!.sent_payload!)).toEqual({
      method: 'POST',
      url: `${apns.url}/3/device/${iphone.token}`,
      headers: { 'apns-push-type': 'alert', 'apns-topic': BUNDLE, 'apns-priority': '10' },
      body: alert!.body,
    });
  });

  test('after an outage each phone gets the latest update and the end, not the history', async () => {
    await setup();
    const [one, two] = [addDevice(h.ctx, 'demo', { platform: 'ios' }), addDevice(h.ctx, 'demo', { platform: 'ios' })];
    const activity = addActivity(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: one.id, token: apnsToken() } });
    await h.ctx.db.repos.tokens.reportActivity('demo', activity, two.id, apnsToken(), null, h.clock.now());
    await apns.goAway();
    for (let i = 1; i <= 60; i++) {
      // Device two gets only every tenth update: superseding is per device.
      await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: String(i) }), i % 10 === 0 ? [one.id, two.id] : [one.id]);
      await engine.drain();
      h.clock.advance(1000);
    }
    await apns.comeBack();
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'end', { progress: '100' }), [one.id]);
    h.clock.advance(60_000);
    await engine.drain();
    const sent = apns.requests.map((r) => [r.body.aps.event, r.body.aps['content-state'].progress]);
    // Device one: only the end (it superseded update 60); device two: update 60, the latest it had.
    expect(sent.sort()).toEqual([
      ['end', '100'],
      ['update', '60'],
    ]);
    const rows = deliveryRows(h.ctx);
    expect(rows.filter((r) => r.status === 'superseded')).toHaveLength(60 + 5);
    expect(rows.filter((r) => r.status === 'delivered').map((r) => r.device_id).sort()).toEqual([one.id, two.id].sort());
  });

  test('updates of an activity whose token is not known yet are held, latest wins, and go when the token arrives', async () => {
    await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios', pushToStartToken: apnsToken() });
    const activity = addActivity(h.ctx, 'demo', { platform: 'ios' });
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'start'), [iphone.id]);
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '20' }), [{ deviceId: iphone.id, status: 'held' }]);
    // Queued as pending by mistake: the worker holds it too rather than send it nowhere.
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '30' }), [iphone.id]);
    await engine.drain();
    expect(apns.requests.map((r) => r.body.aps.event)).toEqual(['start']);
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['delivered', null],
      ['superseded', 'superseded by a newer event'],
      ['held', 'waiting for the activity push token'],
    ]);

    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '70' }), [{ deviceId: iphone.id, status: 'held' }]);
    const token = apnsToken();
    const tokenId = await h.ctx.db.repos.tokens.reportActivity('demo', activity, iphone.id, token, null, h.clock.now());
    expect(await h.ctx.db.write((tx) => h.ctx.outbox.releaseHeld(tx, { activityId: activity, deviceId: iphone.id, tokenId }, h.clock.now()))).toBe(1);
    await engine.drain();
    expect(apns.requests.slice(1).map((r) => [r.token, r.body.aps['content-state'].progress])).toEqual([[token, '70']]);
  });

  test('410 Unregistered invalidates the device token; its other deliveries are dropped without sending', async () => {
    await setup();
    const gone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    const fine = addDevice(h.ctx, 'demo', { platform: 'ios' });
    apns.unregister(gone.token);
    await queue(h.ctx, 'demo', notificationContent(), [gone.id, fine.id]);
    await engine.drain();
    await queue(h.ctx, 'demo', notificationContent('again'), [gone.id, fine.id]);
    await engine.drain();

    expect(apns.requests.map((r) => r.token).sort()).toEqual([gone.token, fine.token, fine.token].sort());
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['dropped', 'Unregistered'],
      ['delivered', null],
      ['dropped', 'token invalid: Unregistered'],
      ['delivered', null],
    ]);
    const device = (await h.admin('GET', '/api/admin/apps/demo/devices')).body.devices.find((d: { id: string }) => d.id === gone.id);
    expect(device).toMatchObject({ valid: false, invalidReason: 'Unregistered' });
  });

  test('a refusal invalidates exactly the token used: a dead activity token leaves the device token and push-to-start token alone', async () => {
    await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios', pushToStartToken: apnsToken() });
    const dead = apnsToken();
    const activity = addActivity(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: iphone.id, token: dead } });
    apns.unregister(dead);
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update'), [iphone.id]);
    await engine.drain();
    const states = Object.fromEntries((await h.ctx.db.repos.tokens.ofDevice(iphone.id)).map((t) => [t.kind, [t.state, t.invalidReason]]));
    expect(states).toEqual({ apns_device: ['active', null], apns_push_to_start: ['active', null], apns_activity: ['invalid', 'Unregistered'] });
    const next = addActivity(h.ctx, 'demo', { platform: 'ios' });
    await queue(h.ctx, 'demo', activityContent(h.ctx, next, 'start'), [iphone.id]);
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['dropped', 'delivered', 'delivered']);
  });

  test('a 410 whose timestamp is older than the token’s last report is ignored; a newer one invalidates it', async () => {
    await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    const reportedAt = h.clock.now();
    apns.respond(() => ({ status: 410, reason: 'Unregistered', timestamp: reportedAt - 60_000 }));
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    // APNs decided before the device reported the token again: the report is newer, the token stays.
    expect((await h.ctx.db.repos.tokens.ofDevice(iphone.id))[0]).toMatchObject({ state: 'active' });
    apns.respond(() => ({ status: 410, reason: 'Unregistered', timestamp: reportedAt + 1 }));
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    expect((await h.ctx.db.repos.tokens.ofDevice(iphone.id))[0]).toMatchObject({ state: 'invalid', invalidReason: 'Unregistered' });
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['dropped', 'Unregistered'],
      ['dropped', 'Unregistered'],
    ]);
  });

  test("the app's environment is its devices' default; a device's own environment wins; each goes to that host's endpoint", async () => {
    const key = await setup();
    const production = await startApnsStandin({ keys: [key], bundleIds: [BUNDLE], clock: h.clock, environment: 'production' });
    try {
      await h.admin('PUT', '/api/admin/apps/demo/apns', {
        bundleId: BUNDLE, teamId: key.teamId, keyId: key.keyId, key: key.key, ca: apns.ca,
        environment: 'sandbox', endpoint: production.url, sandboxEndpoint: apns.url,
      });
      const undeclared = addDevice(h.ctx, 'demo', { platform: 'ios' });
      const declared = addDevice(h.ctx, 'demo', { platform: 'ios', environment: 'production' });
      await queue(h.ctx, 'demo', notificationContent(), [undeclared.id, declared.id]);
      await engine.drain();
      expect(apns.requests.map((r) => r.token)).toEqual([undeclared.token]);
      expect(production.requests.map((r) => r.token)).toEqual([declared.token]);
    } finally {
      await production.close();
    }
  });

  test('BadDeviceToken names the likely environment mix-up', async () => {
    await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    apns.respond(() => ({ status: 400, reason: 'BadDeviceToken' }));
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    const [row] = deliveryRows(h.ctx);
    expect(row!.reason).toBe(
      'BadDeviceToken from the production host: probably a sandbox token (a development build run from Xcode); register the device with environment "sandbox"',
    );
    expect((await h.ctx.db.repos.tokens.ofDevice(iphone.id))[0]).toMatchObject({ state: 'invalid', invalidReason: row!.reason });
  });

  test('503 is about APNs: retried soon without spending an attempt; 429 TooManyRequests spends one and honours Retry-After', async () => {
    await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    const answers = [{ status: 503, reason: 'ServiceUnavailable' }, { status: 503, reason: 'ServiceUnavailable' }, { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '120' } }];
    apns.respond(() => answers.shift());
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    const t0 = h.clock.now();

    await engine.drain();
    let [row] = deliveryRows(h.ctx);
    // An isolated 503 (no Retry-After): again within a second (jitter 0.5), no attempt counted.
    expect([row!.status, row!.attempts, row!.reason, row!.next_attempt_at - t0]).toEqual(['pending', 0, 'ServiceUnavailable', 500]);
    h.clock.advance(499);
    expect(await engine.drain()).toBe(0);
    h.clock.advance(1);
    await engine.drain();
    [row] = deliveryRows(h.ctx);
    expect([row!.attempts, row!.next_attempt_at - h.clock.now()]).toEqual([0, 500]);
    h.clock.advance(500);
    await engine.drain();
    [row] = deliveryRows(h.ctx);
    // About this device token: an attempt, 2^1 × 0.5 = 1 s, but Retry-After asked for 120 s
    expect([row!.attempts, row!.reason, row!.next_attempt_at - h.clock.now()]).toEqual([1, 'TooManyRequests', 120_000]);
    h.clock.advance(120_000);
    await engine.drain();
    [row] = deliveryRows(h.ctx);
    expect([row!.status, row!.attempts, row!.reason]).toEqual(['delivered', 2, null]);
    expect(apns.requests).toHaveLength(4);
  });

  test('a 429 about one device token makes only that token wait', async () => {
    await setup();
    const [busy, other] = [addDevice(h.ctx, 'demo', { platform: 'ios' }), addDevice(h.ctx, 'demo', { platform: 'ios' })];
    let first = true;
    apns.respond((req) => {
      if (req.token !== busy.token || !first) return undefined;
      first = false;
      return { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '30' } };
    });
    await queue(h.ctx, 'demo', notificationContent('one'), [busy.id]);
    await engine.drain();
    await queue(h.ctx, 'demo', notificationContent('two'), [busy.id, other.id]);
    await engine.drain();
    // The second message to the busy token was not sent: it waits out the same 30 s, no attempt spent.
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.attempts, r.next_attempt_at - h.clock.now()])).toEqual([
      ['pending', 1, 30_000],
      ['pending', 0, 30_000],
      ['delivered', 1, 0],
    ]);
    expect(apns.requests).toHaveLength(2);
    h.clock.advance(30_000);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  test('a delivery that keeps failing is given up after the last attempt; a permanent error fails at once', async () => {
    await setup({ random: () => 0, backoff: { baseMs: 1000, capMs: 60_000, maxAttempts: 3 } });
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    apns.respond((req) => (req.body.aps.alert.title === 'big' ? { status: 413, reason: 'PayloadTooLarge' } : { status: 429, reason: 'TooManyRequests' }));
    await queue(h.ctx, 'demo', notificationContent('flaky'), [iphone.id]);
    await queue(h.ctx, 'demo', notificationContent('big'), [iphone.id]);
    await engine.drain();
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.attempts, r.reason])).toEqual([
      ['failed', 3, 'gave up after 3 attempts: TooManyRequests'],
      ['failed', 1, 'PayloadTooLarge'],
    ]);
  });

  test('InvalidProviderToken pauses the APNs channel instead of retrying; new credentials resume it', async () => {
    const key = await setup();
    apns.respond(() => ({ status: 403, reason: 'InvalidProviderToken' }));
    const devices = [1, 2, 3].map(() => addDevice(h.ctx, 'demo', { platform: 'ios' }));
    const pixel = addDevice(h.ctx, 'demo', { platform: 'android' });
    await queue(h.ctx, 'demo', notificationContent(), [devices[0]!.id]);
    await engine.drain();
    await queue(h.ctx, 'demo', notificationContent('more'), [...devices.map((d) => d.id), pixel.id]);
    await engine.drain();

    expect(apns.requests).toHaveLength(1);
    const app = (await h.admin('GET', '/api/admin/apps/demo')).body;
    expect(app.channels.apns).toMatchObject({ status: 'paused', pausedReason: 'InvalidProviderToken' });
    expect(app.channels.fcm).toMatchObject({ status: 'active' });
    expect(h.logs.filter((l) => l.includes('delivery channel paused'))).toHaveLength(1);
    expect(deliveryRows(h.ctx).map((r) => [r.status, r.reason])).toEqual([
      ['held', 'apns channel paused'],
      ['held', 'apns channel paused'],
      ['held', 'apns channel paused'],
      ['held', 'apns channel paused'],
      ['delivered', null],
    ]);
    h.clock.advance(60 * MINUTE);
    await engine.drain();
    expect(apns.requests).toHaveLength(1);

    apns.respond(undefined);
    const res = await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId: BUNDLE, teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
    expect(res.body.channels.apns.status).toBe('active');
    await engine.drain();
    expect(apns.requests).toHaveLength(5);
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(Array(5).fill('delivered'));
  });

  test('one provider token per key is signed and reused until its refresh window (20–50 min) has passed', async () => {
    const key = await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    const send = async (n: number) => {
      await queue(h.ctx, 'demo', notificationContent(), Array(n).fill(iphone.id));
      await engine.drain();
    };
    await send(50);
    h.clock.advance(39 * MINUTE);
    await send(10);
    expect(apns.providerTokens.get(key.keyId)?.size).toBe(1);
    expect((engine.transports.apns as ApnsClient).tokens.signatures).toBe(1);
    h.clock.advance(2 * MINUTE);
    await send(10);
    expect(apns.providerTokens.get(key.keyId)?.size).toBe(2);
    expect((engine.transports.apns as ApnsClient).tokens.signatures).toBe(2);
    expect(deliveryRows(h.ctx, "status = 'delivered'")).toHaveLength(70);
  });

  test('ExpiredProviderToken makes the next attempt use a fresh token, never sooner than 20 minutes after the last', async () => {
    const key = await setup();
    const iphone = addDevice(h.ctx, 'demo', { platform: 'ios' });
    let refuse = 1;
    apns.respond(() => (refuse-- > 0 ? { status: 403, reason: 'ExpiredProviderToken' } : undefined));
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    expect(deliveryRows(h.ctx)[0]!.status).toBe('pending');
    h.clock.advance(2000);
    await engine.drain();
    // Too young to replace: the same token is used again.
    expect(apns.providerTokens.get(key.keyId)?.size).toBe(1);
    expect(deliveryRows(h.ctx)[0]!.status).toBe('delivered');

    refuse = 1;
    h.clock.advance(25 * MINUTE);
    await queue(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    h.clock.advance(2000);
    await engine.drain();
    expect(apns.providerTokens.get(key.keyId)?.size).toBe(2);
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['delivered', 'delivered']);
  });
});
