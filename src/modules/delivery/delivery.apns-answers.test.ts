import { afterEach, beforeAll, expect, test } from 'bun:test';
import type { ApnsStandin } from '../../test-support/apns-standin';
import { notificationContent } from '../../test-support/delivery-fixtures';
import { activityContentOn, addActivityOn, addDeviceOn, apnsRigOn, closeRigOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../test-support/delivery-on';
import { forEachDatabase } from '../../test-support/databases';
import type { TestDatabase } from '../../test-support/harness';
import type { ApnsClient } from './providers/apns/apns.client';
import type { DeliveryEngine, DeliveryEngineOptions } from './delivery.engine';

let h: DeliveryHarness;
let database: TestDatabase;
let apns: ApnsStandin;
let engine: DeliveryEngine;
afterEach(() => closeRigOn({ engine, standin: apns, h }));

const BUNDLE = 'com.example.demo';
const MINUTE = 60_000;

/** A harness, an APNs stand-in that knows the app's key, and the app's credentials pointing at it. */
async function setup(engineOptions: DeliveryEngineOptions = {}) {
  let key;
  ({ h, apns, engine, key } = await apnsRigOn(database, { bundleId: BUNDLE, standinKnowsBundle: true, engine: engineOptions }));
  return key;
}

forEachDatabase('delivery to APNs: retries, pauses and provider tokens', (db) => {
  beforeAll(() => (database = db));
  test('503 is about APNs: retried soon without spending an attempt; 429 TooManyRequests spends one and honours Retry-After', async () => {
    await setup();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    const answers = [{ status: 503, reason: 'ServiceUnavailable' }, { status: 503, reason: 'ServiceUnavailable' }, { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '120' } }];
    apns.respond(() => answers.shift());
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    const t0 = h.clock.now();

    await engine.drain();
    let [row] = (await deliveryRowsOn(h.ctx));
    // An isolated 503 (no Retry-After): again within a second (jitter 0.5), no attempt counted.
    expect([row!.status, row!.attempts, row!.reason, row!.next_attempt_at - t0]).toEqual(['pending', 0, 'ServiceUnavailable', 500]);
    h.clock.advance(499);
    expect(await engine.drain()).toBe(0);
    h.clock.advance(1);
    await engine.drain();
    [row] = (await deliveryRowsOn(h.ctx));
    expect([row!.attempts, row!.next_attempt_at - h.clock.now()]).toEqual([0, 500]);
    h.clock.advance(500);
    await engine.drain();
    [row] = (await deliveryRowsOn(h.ctx));
    // About this device token: an attempt, 2^1 × 0.5 = 1 s, but Retry-After asked for 120 s
    expect([row!.attempts, row!.reason, row!.next_attempt_at - h.clock.now()]).toEqual([1, 'TooManyRequests', 120_000]);
    h.clock.advance(120_000);
    await engine.drain();
    [row] = (await deliveryRowsOn(h.ctx));
    expect([row!.status, row!.attempts, row!.reason]).toEqual(['delivered', 2, null]);
    expect(apns.requests).toHaveLength(4);
  });

  test('a 429 about one device token makes only that token wait', async () => {
    await setup();
    const [busy, other] = [await addDeviceOn(h.ctx, 'demo', { platform: 'ios' }), await addDeviceOn(h.ctx, 'demo', { platform: 'ios' })];
    let first = true;
    apns.respond((req) => {
      if (req.token !== busy.token || !first) return undefined;
      first = false;
      return { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '30' } };
    });
    await queueOn(h.ctx, 'demo', notificationContent('one'), [busy.id]);
    await engine.drain();
    await queueOn(h.ctx, 'demo', notificationContent('two'), [busy.id, other.id]);
    await engine.drain();
    // The second message to the busy token was not sent: it waits out the same 30 s, no attempt spent.
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts, r.next_attempt_at - h.clock.now()])).toEqual([
      ['pending', 1, 30_000],
      ['pending', 0, 30_000],
      ['delivered', 1, 0],
    ]);
    expect(apns.requests).toHaveLength(2);
    h.clock.advance(30_000);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  test('a delivery that keeps failing is given up after the last attempt; a permanent error fails at once', async () => {
    await setup({ random: () => 0, backoff: { baseMs: 1000, capMs: 60_000, maxAttempts: 3 } });
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    apns.respond((req) => (req.body.aps.alert.title === 'big' ? { status: 413, reason: 'PayloadTooLarge' } : { status: 429, reason: 'TooManyRequests' }));
    await queueOn(h.ctx, 'demo', notificationContent('flaky'), [iphone.id]);
    await queueOn(h.ctx, 'demo', notificationContent('big'), [iphone.id]);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts, r.reason])).toEqual([
      ['failed', 3, 'gave up after 3 attempts: TooManyRequests'],
      ['failed', 1, 'PayloadTooLarge'],
    ]);
  });

  test('InvalidProviderToken pauses the APNs channel instead of retrying; new credentials resume it', async () => {
    const key = await setup();
    apns.respond(() => ({ status: 403, reason: 'InvalidProviderToken' }));
    const devices = await Promise.all([1, 2, 3].map(() => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    await queueOn(h.ctx, 'demo', notificationContent(), [devices[0]!.id]);
    await engine.drain();
    await queueOn(h.ctx, 'demo', notificationContent('more'), [...devices.map((d) => d.id), pixel.id]);
    await engine.drain();

    expect(apns.requests).toHaveLength(1);
    const app = (await h.admin('GET', '/api/admin/apps/demo')).body;
    expect(app.channels.apns).toMatchObject({ status: 'paused', pausedReason: 'InvalidProviderToken' });
    expect(app.channels.fcm).toMatchObject({ status: 'active' });
    expect(h.logs.filter((l) => l.includes('delivery channel paused'))).toHaveLength(1);
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
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
    expect((await deliveryRowsOn(h.ctx)).map((r) => r.status)).toEqual(Array(5).fill('delivered'));
  });

  test('one provider token per key is signed and reused until its refresh window (20–50 min) has passed', async () => {
    const key = await setup();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    const send = async (n: number) => {
      await queueOn(h.ctx, 'demo', notificationContent(), Array(n).fill(iphone.id));
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
    expect((await deliveryRowsOn(h.ctx, "status = 'delivered'"))).toHaveLength(70);
  });

  test('ExpiredProviderToken makes the next attempt use a fresh token, never sooner than 20 minutes after the last', async () => {
    const key = await setup();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    let refuse = 1;
    apns.respond(() => (refuse-- > 0 ? { status: 403, reason: 'ExpiredProviderToken' } : undefined));
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx))[0]!.status).toBe('pending');
    h.clock.advance(2000);
    await engine.drain();
    // Too young to replace: the same token is used again.
    expect(apns.providerTokens.get(key.keyId)?.size).toBe(1);
    expect((await deliveryRowsOn(h.ctx))[0]!.status).toBe('delivered');

    refuse = 1;
    h.clock.advance(25 * MINUTE);
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    h.clock.advance(2000);
    await engine.drain();
    expect(apns.providerTokens.get(key.keyId)?.size).toBe(2);
    expect((await deliveryRowsOn(h.ctx)).map((r) => r.status)).toEqual(['delivered', 'delivered']);
  });
});
