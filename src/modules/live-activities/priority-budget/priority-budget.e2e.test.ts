import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PhoneFleet, type ModelPhone } from '../../../test-support/apns-device-model';
import { startApnsStandin, type ApnsReceived, type ApnsStandin } from '../../../test-support/apns-standin';
import { apnsKey } from '../../../test-support/delivery-fixtures';
import { spawnServer, type SpawnedServer } from '../../../test-support/spawn-server';
import { serverClient } from '../../../test-support/server-client';
import { forEachDatabase } from '../../../test-support/databases';
import { eventually } from '../../../test-support/eventually';

forEachDatabase('live-activity-budget-e2e', () => {
  /**
   * `priority: "auto"` (issue 47) through a real server process and the APNs stand-in, whose
   * modelled iPhones keep Apple's budget of priority-10 updates (a budget of 2 here, as the app's
   * `[apps.live_activity_budget]`): past it the phone drops updates while APNs answers 200.
   */
  const APP = 'budget';
  const SECRET = 'sk_budget_test_secret';
  const SIGNING = 'ss_budget_signing_secret';
  const ADMIN = 'budget-admin-token';
  const fleet = new PhoneFleet();
  let dir: string;
  let apns: ApnsStandin;
  let server: SpawnedServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-budget-'));
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], environment: 'production', phones: fleet });
    writeFileSync(join(dir, 'apns.p8'), key.key);
    writeFileSync(join(dir, 'ca.pem'), apns.ca);
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
        `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\nsigning_secret = "${SIGNING}"\n` +
        `[apps.apns]\nbundle_id = "com.example.budget"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\n` +
        `environment = "production"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.live_activity_budget]\npriority10_per_hour = 2\nfrequent_priority10_per_hour = 50\n`,
    );
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    await apns?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const { call, admin } = serverClient(() => server.url, SECRET, ADMIN);
  const la = (suffix = '') => `/api/apps/${APP}/live-activities${suffix}`;
  const signed = (endUserId: string) => ({ 'x-end-user-signature': createHmac('sha256', SIGNING).update(endUserId).digest('hex') });

  /** A phone with Apple's budget of 2 (and 50 once frequent updates are allowed), registered for `endUserId`. */
  async function phoneOf(name: string, endUserId: string): Promise<{ phone: ModelPhone; deviceId: string }> {
    const phone = fleet.add(name, { ios: 18 });
    phone.budget.budget = { priority10PerHour: 2, frequentPriority10PerHour: 50 };
    const res = await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'ios', token: phone.deviceToken, pushToStartToken: phone.pushToStartToken });
    expect(res.status).toBe(200);
    return { phone, deviceId: res.body.device.id };
  }

  /** Starts an activity for `endUserId` and reports each phone's update token, as the app would. */
  async function started(endUserId: string, phones: { phone: ModelPhone; deviceId: string }[]): Promise<string> {
    const res = await call('POST', la(), { templateSlug: 'progress-bar', attributes: { label: 'Ride' }, contentState: { progress: '0' }, targetUsers: [endUserId] });
    expect(res.status).toBe(200);
    const id: string = res.body.activities[0].id;
    for (const { phone, deviceId } of phones) {
      const token = await eventually(() => phone.updateTokens.get(id) ?? Promise.reject(new Error(`${phone.name}: no update token yet`)));
      expect((await call('PUT', la(`/${id}/push-token`), { token, deviceId })).status).toBe(200);
    }
    return id;
  }

  /** The pushes the stand-in received for the activity on `phone` (its update token). */
  const pushesTo = (phone: ModelPhone, id: string): ApnsReceived[] => apns.requests.filter((r) => r.token === phone.updateTokens.get(id));

  /** Six updates in a row, each sent once the stand-in has the one before (so none is superseded). */
  async function sixUpdates(phone: ModelPhone, id: string, priority?: 5 | 10 | 'auto') {
    for (let i = 1; i <= 6; i++) {
      const before = pushesTo(phone, id).length;
      expect((await call('PATCH', la(`/${id}`), { contentState: { progress: String(i * 10) }, ...(priority ? { priority } : {}) })).status).toBe(200);
      await eventually(() => expect(pushesTo(phone, id).length).toBe(before + 1));
    }
    return pushesTo(phone, id).slice(-6);
  }

  const priorities = (pushes: ApnsReceived[]) => pushes.map((r) => r.headers['apns-priority']);

  describe('priority "auto" keeps to the activity budget on each device', () => {
    test('six quick updates under a budget of 2 go as 2 at priority 10 and 4 at 5; the phone shows the latest; an alert and the end go at 10', async () => {
      const ride = await phoneOf('auto-phone', 'rider');
      const id = await started('rider', [ride]);
      const updates = await sixUpdates(ride.phone, id);
      expect(priorities(updates)).toEqual(['10', '10', '5', '5', '5', '5']);
      expect(updates.at(-1)!.body.aps['content-state']).toEqual({ progress: '60' });
      await eventually(() => expect(ride.phone.shows(id)?.contentState).toEqual({ progress: '60' }));
      expect(ride.phone.budget.throttled).toEqual([]);

      const alerting = await call('PATCH', la(`/${id}`), { contentState: { progress: '70' }, alert: { title: 'Almost there', body: '2 minutes' } });
      expect(alerting.status).toBe(200);
      await eventually(() => expect(pushesTo(ride.phone, id).at(-1)?.body.aps['content-state']).toEqual({ progress: '70' }));
      expect(pushesTo(ride.phone, id).at(-1)!.headers['apns-priority']).toBe('10');
      expect((await call('DELETE', la(`/${id}`))).status).toBe(200);
      await eventually(() => expect(pushesTo(ride.phone, id).at(-1)?.body.aps.event).toBe('end'));
      expect(pushesTo(ride.phone, id).at(-1)!.headers['apns-priority']).toBe('10');
      // The push-to-start went at 10 too.
      expect(apns.requests.find((r) => r.token === ride.phone.pushToStartToken && r.body.aps.attributes?.activityId === id)!.headers['apns-priority']).toBe('10');

      const metrics = await fetch(`${server.url}/metrics`).then((r) => r.text());
      const line = metrics.split('\n').find((l) => l.startsWith(`islet_live_activity_pushes_total{app="${APP}",event="update",priority="5",chosen="auto"`));
      expect(line?.endsWith('} 4')).toBe(true);
    }, 60_000);

    test('the same updates at an explicit priority 10 go as asked, and the phone drops those past its budget: it freezes on the second', async () => {
      const ride = await phoneOf('ten-phone', 'rider-ten');
      const id = await started('rider-ten', [ride]);
      const updates = await sixUpdates(ride.phone, id, 10);
      expect(priorities(updates)).toEqual(['10', '10', '10', '10', '10', '10']);
      expect(ride.phone.shows(id)?.contentState).toEqual({ progress: '20' });
      expect(ride.phone.budget.throttled.map((t) => t.contentState)).toEqual(['30', '40', '50', '60'].map((progress) => ({ progress })));
    }, 60_000);

    test('frequent updates allowed (reported by the app) keep the same six updates at 10, and the phone applies them all', async () => {
      const ride = await phoneOf('frequent-phone', 'rider-frequent');
      ride.phone.budget.frequentPushesEnabled = true;
      const id = await started('rider-frequent', [ride]);
      const report = await call('POST', la(`/${id}/state`), { deviceId: ride.deviceId, frequentPushesEnabled: true }, signed('rider-frequent'));
      expect(report.status).toBe(200);
      const updates = await sixUpdates(ride.phone, id);
      expect(priorities(updates)).toEqual(['10', '10', '10', '10', '10', '10']);
      await eventually(() => expect(ride.phone.shows(id)?.contentState).toEqual({ progress: '60' }));
      expect(ride.phone.budget.throttled).toEqual([]);
    }, 60_000);
  });

  describe('the app reports its instances', () => {
    test('a dismissed instance gets nothing more; the activity record shows each instance state', async () => {
      const first = await phoneOf('dismissing-phone', 'family');
      const second = await phoneOf('keeping-phone', 'family');
      const id = await started('family', [first, second]);
      const report = await call('POST', la(`/${id}/state`), { deviceId: first.deviceId, state: 'dismissed' }, signed('family'));
      expect(report.status).toBe(200);
      expect((await call('POST', la(`/${id}/state`), { deviceId: second.deviceId, state: 'active' })).status).toBe(200);
      const before = pushesTo(first.phone, id).length;
      expect((await call('PATCH', la(`/${id}`), { contentState: { progress: '50' } })).status).toBe(200);
      await eventually(() => expect(second.phone.shows(id)?.contentState).toEqual({ progress: '50' }));
      expect((await call('DELETE', la(`/${id}`))).status).toBe(200);
      await eventually(() => expect(second.phone.activities.get(id)?.ended).toBe(true));
      expect(pushesTo(first.phone, id).length).toBe(before);

      const detail = await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}`);
      expect(detail.status).toBe(200);
      const byDevice = Object.fromEntries(detail.body.instances.map((i: { deviceId: string }) => [i.deviceId, i]));
      expect(byDevice[first.deviceId]).toMatchObject({ state: 'ended', reportedState: 'dismissed' });
      expect(byDevice[second.deviceId]).toMatchObject({ reportedState: 'active' });
    }, 60_000);

    test('bad reports answer 400 naming the field, unknown activities and devices 404, a wrong signature 401', async () => {
      const phone = await phoneOf('checked-phone', 'checked');
      const id = await started('checked', [phone]);
      const bad = await call('POST', la(`/${id}/state`), { deviceId: phone.deviceId, state: 'gone' });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain('state');
      const flag = await call('POST', la(`/${id}/state`), { deviceId: phone.deviceId, frequentPushesEnabled: 'yes' });
      expect(flag.status).toBe(400);
      expect(flag.body.detail).toContain('frequentPushesEnabled');
      const empty = await call('POST', la(`/${id}/state`), { deviceId: phone.deviceId });
      expect(empty).toMatchObject({ status: 400, body: { detail: 'state or frequentPushesEnabled is required' } });
      expect((await call('POST', la(`/${id}/state`), { state: 'ended' })).body.detail).toContain('deviceId');
      expect((await call('POST', la('/la_unknown/state'), { deviceId: phone.deviceId, state: 'ended' })).status).toBe(404);
      expect((await call('POST', la(`/${id}/state`), { deviceId: 'dev_unknown', state: 'ended' })).status).toBe(404);
      expect((await call('POST', la(`/${id}/state`), { deviceId: phone.deviceId, state: 'ended' }, signed('someone-else'))).status).toBe(401);
    }, 60_000);
  });

  describe('the budget is an app setting', () => {
    test('PATCH /api/admin/apps/{appId} sets liveActivityBudget (audited); out of range answers 400 naming the field', async () => {
      expect((await admin('GET', `/api/admin/apps/${APP}`)).body.liveActivityBudget).toEqual({ priority10PerHour: 2, frequentPriority10PerHour: 50 });
      const bad = await admin('PATCH', `/api/admin/apps/${APP}`, { liveActivityBudget: { priority10PerHour: -1 } });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain('priority10PerHour');
      const set = await admin('PATCH', `/api/admin/apps/${APP}`, { liveActivityBudget: { frequentPriority10PerHour: 40 } });
      expect(set.status).toBe(200);
      expect(set.body.liveActivityBudget).toEqual({ priority10PerHour: 2, frequentPriority10PerHour: 40 });
      const audit = await admin('GET', '/api/admin/audit?action=app.update');
      expect(JSON.stringify(audit.body)).toContain('"frequentPriority10PerHour":40');
    }, 30_000);
  });
});
