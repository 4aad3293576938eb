import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { createHarness, type Harness } from '../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery/delivery.engine';
import { connect, progress } from '../../test-support/live-activity-fixtures';
import { testRows } from '../../test-support/test-sql';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('activity-streams', (database) => {
  const BUNDLE = 'com.example.streams';
  const HOUR = 60 * 60_000;
  let h: Harness<AppContext>;
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let engine: DeliveryEngine;
  let appId: string;

  beforeEach(async () => {
    h = await createHarness({ database, toml: `[streams]\nrotate_after_minutes = 420\n[plans.tiny]\nlive_activities = true\nminutes = 1\n` });
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], bundleIds: [BUNDLE], clock: h.clock });
    fcm = await startFcmStandin();
    appId = (await h.createApp({ id: 'streams' })).id;
    expect((await h.admin('PUT', `/api/admin/apps/${appId}/apns`, { bundleId: BUNDLE, teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca })).status).toBe(200);
    expect((await h.admin('PUT', `/api/admin/apps/${appId}/fcm`, { serviceAccount: fcm.serviceAccount('p'), endpoint: fcm.url })).status).toBe(200);
    engine = createDeliveryEngine(h.ctx, { random: () => 0.5 });
  });
  afterEach(async () => {
    await engine.stop();
    await apns.close();
    await fcm.close();
    h.close();
  });

  const stream = (key: string) => `/api/apps/${appId}/live-activity-streams/${key}`;
  const put = (key: string, contentState: Record<string, string>, extra: Record<string, unknown> = {}) =>
    h.service(appId, 'PUT', stream(key), { ...progress, contentState, ...extra });

  /** What the stand-ins received since the last call: APNs `event token`, FCM `event activityId`. */
  function sentSince() {
    let apnsSeen = 0;
    let fcmSeen = 0;
    return () => {
      const a = apns.requests.slice(apnsSeen).map((r) => `${r.body.aps.event} ${r.token.slice(0, 8)}`);
      const f = fcm.requests.slice(fcmSeen).map((r) => `${r.body.message.data.event} ${r.body.message.data.activityId}`);
      apnsSeen = apns.requests.length;
      fcmSeen = fcm.requests.length;
      return { apns: a.sort(), fcm: f.sort() };
    };
  }

  describe('live activity streams', () => {
    test('started → updated → noop → rotated (clock past the threshold) → DELETE, as the stand-ins see it', async () => {
      const pushToStart = apnsToken();
      const phone = await connect(h, appId, 'ios-user', { platform: 'ios', pushToStartToken: pushToStart });
      await connect(h, appId, 'android-user');
      const sent = sentSince();
      const targets = { targetUsers: ['ios-user', 'android-user'] };

      const started = await put('order:42', { progress: '10', detail: '1 of 10' }, targets);
      expect(started.status).toBe(200);
      expect(started.body.status).toBe('started');
      expect(started.body.activityIds).toHaveLength(2);
      await engine.drain();
      const [first, second] = started.body.activityIds as string[];
      const androidActivity = (await h.service(appId, 'GET', `/api/apps/${appId}/live-activities/${first}`)).body.platform === 'android' ? first : second;
      const iosActivity = androidActivity === first ? second : first;
      expect(sent()).toEqual({ apns: [`start ${pushToStart.slice(0, 8)}`], fcm: [`start ${androidActivity}`] });

      // The iPhone reports its activity's update token, as ActivityKit hands it to the app.
      const activityToken = apnsToken();
      expect((await h.service(appId, 'PUT', `/api/apps/${appId}/live-activities/${iosActivity}/push-token`, { token: activityToken, deviceId: phone })).status).toBe(200);

      const updated = await put('order:42', { progress: '50', detail: '5 of 10' }, targets);
      expect(updated.body).toEqual({ status: 'updated', activityIds: started.body.activityIds });
      await engine.drain();
      expect(sent()).toEqual({ apns: [`update ${activityToken.slice(0, 8)}`], fcm: [`update ${androidActivity}`] });

      // Same state, keys in another order: nothing is queued, nothing is sent.
      const deliveriesBefore = (await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM deliveries'))[0]!.n;
      const noop = await put('order:42', { detail: '5 of 10', progress: '50' }, { targetUsers: ['android-user', 'ios-user'] });
      expect(noop.body).toEqual({ status: 'noop', activityIds: started.body.activityIds });
      await engine.drain();
      expect(sent()).toEqual({ apns: [], fcm: [] });
      expect((await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM deliveries'))[0]!.n).toBe(deliveriesBefore);

      // Just before the threshold an update is still an update; past it, the stream starts over.
      h.clock.advance(7 * HOUR - 1);
      expect((await put('order:42', { progress: '60', detail: '6 of 10' }, targets)).body.status).toBe('updated');
      await engine.drain();
      sent();
      h.clock.advance(1);
      const rotated = await put('order:42', { progress: '70', detail: '7 of 10' }, targets);
      expect(rotated.body.status).toBe('rotated');
      expect(rotated.body.activityIds).toHaveLength(2);
      expect(rotated.body.activityIds.some((id: string) => started.body.activityIds.includes(id))).toBe(false);
      await engine.drain();
      const afterRotation = sent();
      expect(afterRotation.apns).toEqual([`end ${activityToken.slice(0, 8)}`, `start ${pushToStart.slice(0, 8)}`].sort());
      expect(afterRotation.fcm.filter((e) => e.startsWith('end '))).toEqual([`end ${androidActivity}`]);
      const newAndroid = afterRotation.fcm.find((e) => e.startsWith('start '))!.slice('start '.length);
      expect(rotated.body.activityIds).toContain(newAndroid);
      const old = (await h.service(appId, 'GET', `/api/apps/${appId}/live-activities/${iosActivity}`)).body;
      expect(old.state).toBe('Ended');

      const shown = await h.service(appId, 'GET', stream('order:42'));
      expect(shown.body).toMatchObject({ key: 'order:42', state: 'Active', contentState: { progress: '70', detail: '7 of 10' }, activityIds: rotated.body.activityIds });
      expect(shown.body.targetUsers).toEqual(['android-user', 'ios-user']);

      const removed = await h.service(appId, 'DELETE', stream('order:42'));
      expect(removed.status).toBe(200);
      expect(removed.body.activityIds.sort()).toEqual([...rotated.body.activityIds].sort());
      await engine.drain();
      // The new Android activity's end goes out; the new iOS one's end waits for its update token.
      const afterDelete = sent();
      expect(afterDelete).toEqual({ apns: [], fcm: [`end ${newAndroid}`] });
      expect((await h.service(appId, 'GET', stream('order:42'))).status).toBe(404);
    });

    test('another template or attributes starts over (started); ended activities (by the API) make the next PUT start', async () => {
      await connect(h, appId, 'u1');
      const first = await put('k', { progress: '1', detail: 'a' });
      const again = await put('k', { progress: '1', detail: 'a' }, { attributes: { label: 'Other' } });
      expect(again.body.status).toBe('started');
      const before = (await h.service(appId, 'GET', `/api/apps/${appId}/live-activities/${first.body.activityIds[0]}`)).body;
      expect(before.state).toBe('Ended');
      await h.service(appId, 'DELETE', `/api/apps/${appId}/live-activities/${again.body.activityIds[0]}`);
      expect((await h.service(appId, 'GET', stream('k'))).body.state).toBe('Ended');
      expect((await put('k', { progress: '1', detail: 'a' }, { attributes: { label: 'Other' } })).body.status).toBe('started');
    });

    test('bad keys and bodies are 400, plan and quota rules are those of start, and concurrent PUTs start once', async () => {
      await connect(h, appId, 'u1');
      const badKey = await put('has space', { progress: '1' });
      expect([badKey.status, badKey.body.detail]).toEqual([400, 'key must be 1 to 128 characters of A-Z, a-z, 0-9, ., _, : and -']);
      expect((await put('k'.repeat(129), { progress: '1' })).status).toBe(400);
      expect((await put('ok', { progress: 'lots' })).status).toBe(400);
      expect((await h.service(appId, 'GET', stream('missing'))).status).toBe(404);
      expect((await h.service(appId, 'DELETE', stream('missing'))).status).toBe(404);

      const both = await Promise.all([put('race', { progress: '1', detail: 'a' }), put('race', { progress: '1', detail: 'a' })]);
      expect(both.map((r) => r.body.status).sort()).toEqual(['noop', 'started']);
      expect((await testRows<{ n: number }>(h.ctx, `SELECT count(*) AS n FROM activities WHERE state = 'Active'`))[0]!.n).toBe(1);

      const free = await h.createApp({ id: 'free', plan: 'free' });
      const refused = await h.request('PUT', `/api/apps/free/live-activity-streams/k`, { body: progress, headers: { 'x-service-key': free.appSecret } });
      expect([refused.status, refused.body.detail]).toEqual([403, 'live activities are not available on your current plan']);

      const tiny = await h.createApp({ id: 'tiny', plan: 'tiny' });
      await h.request('POST', `/api/apps/tiny/devices`, { body: { endUserId: 'u', platform: 'android', token: 'tok-tiny' }, headers: { 'x-service-key': tiny.appSecret } });
      const tinyPut = (contentState: Record<string, string>) =>
        h.request('PUT', `/api/apps/tiny/live-activity-streams/k`, { body: { ...progress, contentState }, headers: { 'x-service-key': tiny.appSecret } });
      expect((await tinyPut({ progress: '1' })).body.status).toBe('started');
      h.clock.advance(2 * 60_000);
      await h.request('DELETE', `/api/apps/tiny/live-activity-streams/k`, { headers: { 'x-service-key': tiny.appSecret } });
      const overQuota = await tinyPut({ progress: '2' });
      expect([overQuota.status, overQuota.body.detail]).toEqual([429, 'live activity minutes limit exceeded for this billing period']);
    });
  });
});
