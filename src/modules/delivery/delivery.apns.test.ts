import { afterEach, beforeAll, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { notificationContent } from '../../test-support/delivery-fixtures';
import { activityContentOn, addActivityOn, addDeviceOn, apnsRigOn, closeRigOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../test-support/delivery-on';
import { forEachDatabase } from '../../test-support/databases';
import type { TestDatabase } from '../../test-support/harness';
import type { DeliveryEngine, DeliveryEngineOptions } from './delivery.engine';
import { tokensRepository } from '../tokens/tokens.repository';
import { activitiesPath, connect, progress, start } from '../../test-support/live-activity-fixtures';
import { testRows } from '../../test-support/test-sql';

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

forEachDatabase('delivery to APNs', (db) => {
  beforeAll(() => (database = db));
  test('alerts, and live activity start, update and end, go with the right token, headers and aps keys', async () => {
    await setup();
    const pushToStart = apnsToken();
    const activityToken = apnsToken();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios', pushToStartToken: pushToStart });
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: iphone.id, token: activityToken } });
    const startedAt = h.clock.now();
    await queueOn(h.ctx, 'demo', notificationContent('Sale', 'Today only'), [iphone.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'start', { progress: '0' }), [iphone.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '40' }), [iphone.id]);
    expect(await engine.drain()).toBe(3);
    // Queued after the update went (queued together, the end would supersede it).
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'end', { progress: '100' }, { dismissalAt: startedAt + 12 * 60 * MINUTE }), [iphone.id]);
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

    const rows = (await deliveryRowsOn(h.ctx));
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(rows.every((r) => r.provider === 'apns' && /^[0-9A-F-]{36}$/.test(r.provider_id!))).toBe(true);
    expect(JSON.parse(rows[0]!.sent_payload!)).toEqual({
      method: 'POST',
      url: `${apns.url}/3/device/${iphone.token}`,
      headers: { 'apns-push-type': 'alert', 'apns-topic': BUNDLE, 'apns-priority': '10' },
      body: alert!.body,
    });
  });

  test("a Live Activity update is rendered once: the request that checked its size keeps the APNs body on the message, and the worker sends that body as it is", async () => {
    await setup();
    const iphone = await connect(h, 'demo', 'u1', { platform: 'ios', pushToStartToken: apnsToken() });
    const activity: string = (await start(h, 'demo', { ...progress, targetUsers: ['u1'] })).body.activities[0].id;
    expect(await engine.drain()).toBe(1);
    const activityToken = apnsToken();
    await tokensRepository(h.ctx.db.sql).reportActivity('demo', activity, iphone, activityToken, null, h.clock.now());
    expect((await h.service('demo', 'PATCH', `${activitiesPath('demo')}/${activity}`, { contentState: { progress: '40' } })).status).toBe(200);
    const [kept] = await testRows<{ sent_body: string | null }>(h.ctx, `SELECT sent_body FROM messages WHERE kind = 'la_update'`);
    expect(JSON.parse(kept!.sent_body!).aps).toMatchObject({ event: 'update', 'content-state': { progress: '40' } });
    // Marked in the database, the kept body shows that the worker sends it rather than render the update again.
    await testRows(h.ctx, `UPDATE messages SET sent_body = ? WHERE kind = 'la_update'`, [kept!.sent_body!.replace('"40"', '"kept"')]);
    expect(await engine.drain()).toBe(1);
    const update = apns.requests.filter((r) => r.body.aps.event === 'update');
    expect(update.map((r) => [r.token, r.headers['apns-push-type'], r.headers['apns-topic'], r.body.aps['content-state']])).toEqual([
      [activityToken, 'liveactivity', `${BUNDLE}.push-type.liveactivity`, { progress: 'kept' }],
    ]);
  });

  test("a Live Activity start keeps its APNs body on the message when queued (iPhones only), and the worker sends that body as it is", async () => {
    await setup();
    await connect(h, 'demo', 'u1', { platform: 'ios', pushToStartToken: apnsToken() });
    await connect(h, 'demo', 'u2', { platform: 'android' });
    const started = (await start(h, 'demo', { ...progress, targetUsers: ['u1', 'u2'] })).body.activities as { id: string; endUserId: string }[];
    const kept = await testRows<{ activity_id: string; sent_body: string | null }>(h.ctx, `SELECT activity_id, sent_body FROM messages WHERE kind = 'la_start' ORDER BY id`);
    const ios = started.find((a) => a.endUserId === 'u1')!.id;
    expect(kept.map((m) => [m.activity_id, m.sent_body === null])).toEqual(started.map((a) => [a.id, a.endUserId === 'u2']));
    const body = kept.find((m) => m.activity_id === ios)!.sent_body!;
    expect(JSON.parse(body).aps).toMatchObject({ event: 'start', 'content-state': { progress: '10' }, attributes: { activityId: ios } });
    // Marked in the database, the kept body shows that the worker sends it rather than render the start again.
    await testRows(h.ctx, `UPDATE messages SET sent_body = ? WHERE activity_id = ?`, [body.replace('"10"', '"kept"'), ios]);
    expect(await engine.drain()).toBe(2);
    const sent = apns.requests.filter((r) => r.body.aps.event === 'start');
    expect(sent.map((r) => [r.headers['apns-push-type'], r.body.aps['content-state'].progress])).toEqual([['liveactivity', 'kept']]);
    // The delivery's record leaves the body out: the message holds it.
    const [record] = await testRows<{ sent_payload: string }>(h.ctx, `SELECT sent_payload FROM deliveries WHERE activity_id = ?`, [ios]);
    expect(JSON.parse(record!.sent_payload).body).toBeUndefined();
  });

  test('after an outage each phone gets the latest update and the end, not the history', async () => {
    await setup();
    const [one, two] = [await addDeviceOn(h.ctx, 'demo', { platform: 'ios' }), await addDeviceOn(h.ctx, 'demo', { platform: 'ios' })];
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: one.id, token: apnsToken() } });
    await tokensRepository(h.ctx.db.sql).reportActivity('demo', activity, two.id, apnsToken(), null, h.clock.now());
    await apns.goAway();
    for (let i = 1; i <= 60; i++) {
      // Device two gets only every tenth update: superseding is per device.
      await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: String(i) }), i % 10 === 0 ? [one.id, two.id] : [one.id]);
      await engine.drain();
      h.clock.advance(1000);
    }
    await apns.comeBack();
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'end', { progress: '100' }), [one.id]);
    h.clock.advance(60_000);
    await engine.drain();
    const sent = apns.requests.map((r) => [r.body.aps.event, r.body.aps['content-state'].progress]);
    // Device one: only the end (it superseded update 60); device two: update 60, the latest it had.
    expect(sent.sort()).toEqual([
      ['end', '100'],
      ['update', '60'],
    ]);
    const rows = (await deliveryRowsOn(h.ctx));
    expect(rows.filter((r) => r.status === 'superseded')).toHaveLength(60 + 5);
    expect(rows.filter((r) => r.status === 'delivered').map((r) => r.device_id).sort()).toEqual([one.id, two.id].sort());
  });

  test('updates of an activity whose token is not known yet are held, latest wins, and go when the token arrives', async () => {
    await setup();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios', pushToStartToken: apnsToken() });
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'ios' });
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'start'), [iphone.id]);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '20' }), [{ deviceId: iphone.id, status: 'held' }]);
    // Queued as pending by mistake: the worker holds it too rather than send it nowhere.
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '30' }), [iphone.id]);
    await engine.drain();
    expect(apns.requests.map((r) => r.body.aps.event)).toEqual(['start']);
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
      ['delivered', null],
      ['superseded', 'superseded by a newer event'],
      ['held', 'waiting for the activity push token'],
    ]);

    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update', { progress: '70' }), [{ deviceId: iphone.id, status: 'held' }]);
    const token = apnsToken();
    const tokenId = await tokensRepository(h.ctx.db.sql).reportActivity('demo', activity, iphone.id, token, null, h.clock.now());
    expect(await h.ctx.db.write((tx) => h.ctx.outbox.releaseHeld(tx, { activityId: activity, deviceId: iphone.id, tokenId }, h.clock.now()))).toBe(1);
    await engine.drain();
    expect(apns.requests.slice(1).map((r) => [r.token, r.body.aps['content-state'].progress])).toEqual([[token, '70']]);
  });

  test('410 Unregistered invalidates the device token; its other deliveries are dropped without sending', async () => {
    await setup();
    const gone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    const fine = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    apns.unregister(gone.token);
    await queueOn(h.ctx, 'demo', notificationContent(), [gone.id, fine.id]);
    await engine.drain();
    await queueOn(h.ctx, 'demo', notificationContent('again'), [gone.id, fine.id]);
    await engine.drain();

    expect(apns.requests.map((r) => r.token).sort()).toEqual([gone.token, fine.token, fine.token].sort());
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
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
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios', pushToStartToken: apnsToken() });
    const dead = apnsToken();
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'ios', activityToken: { deviceId: iphone.id, token: dead } });
    apns.unregister(dead);
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'update'), [iphone.id]);
    await engine.drain();
    const states = Object.fromEntries((await tokensRepository(h.ctx.db.sql).ofDevice(iphone.id)).map((t) => [t.kind, [t.state, t.invalidReason]]));
    expect(states).toEqual({ apns_device: ['active', null], apns_push_to_start: ['active', null], apns_activity: ['invalid', 'Unregistered'] });
    const next = await addActivityOn(h.ctx, 'demo', { platform: 'ios' });
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, next, 'start'), [iphone.id]);
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => r.status)).toEqual(['dropped', 'delivered', 'delivered']);
  });

  test('a 410 whose timestamp is older than the token’s last report is ignored; a newer one invalidates it', async () => {
    await setup();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    const reportedAt = h.clock.now();
    apns.respond(() => ({ status: 410, reason: 'Unregistered', timestamp: reportedAt - 60_000 }));
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    // APNs decided before the device reported the token again: the report is newer, the token stays.
    expect((await tokensRepository(h.ctx.db.sql).ofDevice(iphone.id))[0]).toMatchObject({ state: 'active' });
    apns.respond(() => ({ status: 410, reason: 'Unregistered', timestamp: reportedAt + 1 }));
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    expect((await tokensRepository(h.ctx.db.sql).ofDevice(iphone.id))[0]).toMatchObject({ state: 'invalid', invalidReason: 'Unregistered' });
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.reason])).toEqual([
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
      const undeclared = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
      const declared = await addDeviceOn(h.ctx, 'demo', { platform: 'ios', environment: 'production' });
      await queueOn(h.ctx, 'demo', notificationContent(), [undeclared.id, declared.id]);
      await engine.drain();
      expect(apns.requests.map((r) => r.token)).toEqual([undeclared.token]);
      expect(production.requests.map((r) => r.token)).toEqual([declared.token]);
    } finally {
      await production.close();
    }
  });

  test('BadDeviceToken names the likely environment mix-up', async () => {
    await setup();
    const iphone = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    apns.respond(() => ({ status: 400, reason: 'BadDeviceToken' }));
    await queueOn(h.ctx, 'demo', notificationContent(), [iphone.id]);
    await engine.drain();
    const [row] = (await deliveryRowsOn(h.ctx));
    expect(row!.reason).toBe(
      'BadDeviceToken from the production host: probably a sandbox token (a development build run from Xcode); register the device with environment "sandbox"',
    );
    expect((await tokensRepository(h.ctx.db.sql).ofDevice(iphone.id))[0]).toMatchObject({ state: 'invalid', invalidReason: row!.reason });
  });
});
