import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PhoneFleet, type ModelPhone } from '../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { serverClient } from '../../test-support/server-client';
import { forEachDatabase } from '../../test-support/databases';
import { eventually } from '../../test-support/eventually';

forEachDatabase('phones-e2e', (database) => {
  /**
   * Live Activities as modelled iPhones (apns-device-model.ts) see them, through a real server
   * process that delivers to two APNs stand-ins: one plays Apple's production host, the other the
   * sandbox host. The test plays the iOS app: it registers devices and reports the update tokens
   * the phones issue, as ActivityKit's pushTokenUpdates would hand them to the app.
   */

  const APP = 'phones';
  const SECRET = 'sk_phones_test_secret';
  const ADMIN = 'phones-admin-token';
  const fleet = new PhoneFleet();
  let dir: string;
  let production: ApnsStandin;
  let sandbox: ApnsStandin;
  let fcm: FcmStandin;
  let server: SpawnedServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-phones-'));
    const key = apnsKey();
    production = await startApnsStandin({ keys: [key], environment: 'production', phones: fleet });
    sandbox = await startApnsStandin({ keys: [key], environment: 'sandbox', phones: fleet });
    fcm = await startFcmStandin();
    writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('phones-project')));
    writeFileSync(join(dir, 'apns.p8'), key.key);
    writeFileSync(join(dir, 'ca.pem'), production.ca);
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
        `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n` +
        `[apps.apns]\nbundle_id = "com.example.phones"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\n` +
        `environment = "production"\nendpoint = "${production.url}"\nsandbox_endpoint = "${sandbox.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
    );
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'hello', title: 'Hi', body: 'there' }] });
    expect(release.status).toBe(201);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    await production?.close();
    await sandbox?.close();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const { call, admin } = serverClient(() => server.url, SECRET, ADMIN);
  const la = (suffix = '') => `/api/apps/${APP}/live-activities${suffix}`;

  /** The app on `phone` registers it for `endUserId`; returns the device id Islet answered. */
  async function register(phone: ModelPhone, endUserId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'ios', token: phone.deviceToken, pushToStartToken: phone.pushToStartToken, ...extra });
    expect(res.status).toBe(200);
    return res.body.device.id;
  }

  async function startFor(endUserId: string, contentState = { progress: '10', detail: 'starting' }, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await call('POST', la(), { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState, targetUsers: [endUserId], ...extra });
    expect(res.status).toBe(200);
    return res.body.activities[0].id;
  }

  /** The app on `phone` reports the update token the phone issued for the activity. */
  async function reportToken(phone: ModelPhone, activityId: string, deviceId?: string) {
    const token = await eventually(() => {
      const t = phone.updateTokens.get(activityId);
      if (!t) throw new Error(`${phone.name} issued no update token for ${activityId}`);
      return t;
    });
    return call('PUT', la(`/${activityId}/push-token`), { token, ...(deviceId ? { deviceId } : {}) });
  }

  const progressOn = (phone: ModelPhone, activityId: string) => phone.shows(activityId)?.contentState.progress;

  describe('Live Activities on modelled iPhones (real server, production and sandbox APNs stand-ins)', () => {
    test('an iOS 18 phone shows the updates of an activity started by push: the start asks for an update token, the app reports it, updates follow', async () => {
      const phone = fleet.add('iphone-18', { ios: 18 });
      await register(phone, 'solo');
      const id = await startFor('solo');
      // Updates queued before the token arrives are held, latest wins.
      expect((await call('PATCH', la(`/${id}`), { contentState: { progress: '20', detail: 'held' } })).status).toBe(200);
      expect((await call('PATCH', la(`/${id}`), { contentState: { progress: '30', detail: 'held' } })).status).toBe(200);
      await eventually(() => expect(progressOn(phone, id)).toBe('10'));
      expect((await reportToken(phone, id)).status).toBe(200);
      await eventually(() => expect(progressOn(phone, id)).toBe('30'));

      // Updates within one second (the test takes milliseconds): each is newer than the last, none is ignored.
      for (const progress of ['40', '50', '60']) {
        await call('PATCH', la(`/${id}`), { contentState: { progress, detail: 'fast' } });
        await eventually(() => expect(progressOn(phone, id)).toBe(progress));
      }
      expect(phone.shows(id)!.ignored).toBe(0);
      // In the order the events happened (sends may overtake each other), timestamps strictly increase.
      const sent = production.requests.filter((r) => r.token === phone.updateTokens.get(id) || r.body?.aps?.attributes?.activityId === id);
      const byProgress = ['10', '30', '40', '50', '60'].map((p) => sent.find((r) => r.body.aps['content-state'].progress === p)!.body.aps.timestamp);
      expect(byProgress.every((ts, i) => i === 0 || ts > byProgress[i - 1]!)).toBe(true);

      // End without a body (and without a content type): the activity is removed from the phone at once.
      const ended = await fetch(`${server.url}${la(`/${id}`)}`, { method: 'DELETE', headers: { 'x-service-key': SECRET } });
      expect(ended.status).toBe(200);
      await eventually(() => expect(phone.activities.get(id)).toMatchObject({ ended: true, contentState: { progress: '60' } }));
      expect(phone.shows(id)).toBeUndefined();
      expect(phone.activities.get(id)!.dismissalDate).toBeLessThanOrEqual(Date.now() / 1000);
    }, 30_000);

    test('the phone model applies only newer timestamps, refuses the other host, and answers 410 with the retirement time', () => {
      const phone = fleet.add('model-rules', { ios: 17 });
      const headers = { 'apns-push-type': 'liveactivity' };
      const start = { aps: { event: 'start', timestamp: 100, 'attributes-type': 'IsletActivityAttributes', attributes: { activityId: 'm' }, 'content-state': { progress: '1' } } };
      expect(phone.receive(phone.pushToStartToken, headers, start, 'production')).toBeUndefined();
      const token = phone.updateTokens.get('m')!;
      const update = (timestamp: number, progress: string) => ({ aps: { event: 'update', timestamp, 'content-state': { progress } } });
      phone.receive(token, headers, update(100, 'tie'), 'production');
      phone.receive(token, headers, update(99, 'older'), 'production');
      expect(phone.shows('m')).toMatchObject({ contentState: { progress: '1' }, ignored: 2 });
      phone.receive(token, headers, update(101, 'newer'), 'production');
      expect(phone.shows('m')!.contentState).toEqual({ progress: 'newer' });
      expect(phone.receive(token, headers, update(102, 'x'), 'sandbox')).toEqual({ status: 400, reason: 'BadDeviceToken' });
      // An end with a dismissal date now removes it at once; its token is gone from then on.
      const dismissedAt = Math.floor(Date.now() / 1000);
      phone.receive(token, headers, { aps: { event: 'end', timestamp: 102, 'dismissal-date': dismissedAt } }, 'production');
      expect([phone.shows('m'), phone.activities.get('m')?.ended]).toEqual([undefined, true]);
      expect(phone.receive(token, headers, update(103, 'late'), 'production')).toEqual({ status: 410, reason: 'Unregistered', timestamp: dismissedAt * 1000 });
      // Without a dismissal date iOS keeps an ended activity (up to 4 hours).
      phone.receive(phone.pushToStartToken, headers, { aps: { ...start.aps, attributes: { activityId: 'kept' } } }, 'production');
      phone.receive(phone.updateTokens.get('kept')!, headers, { aps: { event: 'end', timestamp: 101 } }, 'production');
      expect(phone.shows('kept')).toMatchObject({ ended: true });
      const before = Date.now();
      phone.dismiss('m');
      const gone = phone.receive(token, headers, update(103, 'y'), 'production');
      expect(gone).toMatchObject({ status: 410, reason: 'Unregistered' });
      expect(gone!.timestamp).toBeGreaterThanOrEqual(before);
    });

    test('an iOS 18 phone never issues an update token for a start without input-push-token (the model enforces it)', () => {
      const phone = fleet.add('iphone-18-direct', { ios: 18 });
      const start = { aps: { event: 'start', timestamp: 1, 'attributes-type': 'IsletActivityAttributes', attributes: { activityId: 'x' }, 'content-state': {} } };
      phone.receive(phone.pushToStartToken, { 'apns-push-type': 'liveactivity' }, start, 'production');
      expect(phone.shows('x')).toBeDefined();
      expect(phone.updateTokens.has('x')).toBe(false);
      const ios17 = fleet.add('iphone-17-direct', { ios: 17 });
      ios17.receive(ios17.pushToStartToken, { 'apns-push-type': 'liveactivity' }, start, 'production');
      expect(ios17.updateTokens.has('x')).toBe(true);
    });

    test('two iPhones of one user both show every update, each at its own token; the report must say which device', async () => {
      const first = fleet.add('iphone-a', { ios: 18 });
      const second = fleet.add('iphone-b', { ios: 17 });
      const firstId = await register(first, 'twin');
      const secondId = await register(second, 'twin');
      const id = await startFor('twin');
      await eventually(() => expect([progressOn(first, id), progressOn(second, id)]).toEqual(['10', '10']));

      const ambiguous = await reportToken(first, id);
      expect(ambiguous.status).toBe(400);
      expect(ambiguous.body.detail).toContain('deviceId');
      expect((await reportToken(first, id, firstId)).status).toBe(200);
      expect((await reportToken(second, id, secondId)).status).toBe(200);
      for (const progress of ['20', '30', '40']) {
        await call('PATCH', la(`/${id}`), { contentState: { progress, detail: 'both' } });
        await eventually(() => expect([progressOn(first, id), progressOn(second, id)]).toEqual([progress, progress]));
      }
      // The phones have it before the worker writes the outcome down (it writes in batches).
      await eventually(async () => {
        const detail = await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}`);
        expect(detail.body.instances.map((i: any) => [i.deviceId, i.platform, i.state, i.tokenState, i.lastDelivery.status]).sort()).toEqual(
          [[firstId, 'ios', 'live', 'active', 'sent'], [secondId, 'ios', 'live', 'active', 'sent']].sort(),
        );
      });
      // The public record is unchanged: no instances there.
      expect(Object.keys((await call('GET', la(`/${id}`))).body).sort()).toEqual(['appId', 'endUserId', 'id', 'platform', 'startedAt', 'state', 'templateSlug']);

      // End with options: a final state and a dismissal date in the past remove it from both at once.
      expect((await call('DELETE', la(`/${id}`), { contentState: { progress: '100', detail: 'done' }, dismissalDate: 0 })).status).toBe(200);
      await eventually(() => expect([first.shows(id), second.shows(id)]).toEqual([undefined, undefined]));
      expect(first.activities.get(id)).toMatchObject({ ended: true, contentState: { progress: '100', detail: 'done' }, dismissalDate: 0 });
    }, 30_000);

    test('a 410 for one activity token invalidates only it: the next start and alerts still reach the phone', async () => {
      const phone = fleet.add('iphone-410', { ios: 18 });
      const deviceId = await register(phone, 'dismisser');
      const id = await startFor('dismisser');
      expect((await reportToken(phone, id)).status).toBe(200);
      phone.dismiss(id);
      await call('PATCH', la(`/${id}`), { contentState: { progress: '20', detail: 'gone' } });
      const detail = await eventually(async () => {
        const d = (await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}`)).body;
        expect(d.instances[0]).toMatchObject({ deviceId, tokenState: 'invalid', tokenInvalidReason: 'Unregistered' });
        return d;
      });
      expect(detail.instances[0].lastDelivery.status).toBe('dropped');
      // Further updates of that activity are not even queued for the dead token.
      const deliveriesOf = async () => (await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}/deliveries`)).body.deliveries.length;
      const before = await deliveriesOf();
      expect((await call('PATCH', la(`/${id}`), { contentState: { progress: '30', detail: 'gone' } })).status).toBe(200);
      expect(await deliveriesOf()).toBe(before);

      const next = await startFor('dismisser', { progress: '1', detail: 'again' });
      await eventually(() => expect(progressOn(phone, next)).toBe('1'));
      expect((await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'hello', targetUsers: ['dismisser'] })).body).toMatchObject({ messageCount: 1 });
      await eventually(() => expect(phone.notifications).toEqual([{ title: 'Hi', body: 'there' }]));
      const devices = (await admin('GET', `/api/admin/apps/${APP}/devices?endUserId=dismisser`)).body.devices;
      expect(devices).toEqual([expect.objectContaining({ id: deviceId, valid: true, hasPushToStartToken: true })]);
    }, 30_000);

    test('after a device-token rotation the push-to-start token moves to the new device row: a start reaches the phone once', async () => {
      const phone = fleet.add('iphone-rotated', { ios: 18 });
      const oldRow = await register(phone, 'rotator');
      phone.rotateDeviceToken();
      const newRow = await register(phone, 'rotator');
      expect(newRow).not.toBe(oldRow);
      const id = await startFor('rotator');
      await eventually(() => expect(progressOn(phone, id)).toBe('10'));
      await eventually(async () => {
        const d = (await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}/deliveries`)).body;
        const byDevice = Object.fromEntries(d.deliveries.map((x: any) => [x.deviceId, [x.status, x.reason]]));
        expect(byDevice).toEqual({ [newRow]: ['sent', null], [oldRow]: ['failed', 'device has no push-to-start token'] });
      });
      expect(production.requests.filter((r) => r.token === phone.pushToStartToken && r.body.aps.attributes?.activityId === id)).toHaveLength(1);
    }, 30_000);

    test("each device goes to its environment's host: a sandbox build declared as such works; undeclared, the production host refuses it with a reason naming the mix-up", async () => {
      const xcode = fleet.add('iphone-xcode', { ios: 18, environment: 'sandbox' });
      await register(xcode, 'developer', { environment: 'sandbox' });
      const id = await startFor('developer');
      await eventually(() => expect(progressOn(xcode, id)).toBe('10'));
      expect(sandbox.requests.some((r) => r.token === xcode.pushToStartToken)).toBe(true);
      expect(production.requests.some((r) => r.token === xcode.pushToStartToken)).toBe(false);
      expect((await reportToken(xcode, id)).status).toBe(200);
      await call('PATCH', la(`/${id}`), { contentState: { progress: '60', detail: 'sandbox' }, priority: 5, alert: { title: 'Halfway', body: '60%' } });
      await eventually(() => expect(progressOn(xcode, id)).toBe('60'));
      expect(xcode.shows(id)!.alerts).toContainEqual({ title: 'Halfway', body: '60%' });
      expect(sandbox.requests.find((r) => r.body?.aps?.['content-state']?.progress === '60')!.headers['apns-priority']).toBe('5');

      const mixedUp = fleet.add('iphone-mixed-up', { ios: 18, environment: 'sandbox' });
      const deviceId = await register(mixedUp, 'forgetful');
      await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'hello', targetUsers: ['forgetful'] });
      const device = await eventually(async () => {
        const [d] = (await admin('GET', `/api/admin/apps/${APP}/devices?endUserId=forgetful`)).body.devices;
        expect(d.valid).toBe(false);
        return d;
      });
      expect(device).toMatchObject({ id: deviceId, hasPushToStartToken: true });
      expect(device.invalidReason).toContain('BadDeviceToken from the production host');
      expect(device.invalidReason).toContain('environment "sandbox"');
      // Registering again with the right environment revives it.
      await register(mixedUp, 'forgetful', { environment: 'sandbox' });
      await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'hello', targetUsers: ['forgetful'] });
      await eventually(() => expect(mixedUp.notifications).toHaveLength(1));
    }, 30_000);

    test('a user with an iPhone and an Android phone: both get every event; Android messages collapse by activity, with a ttl and the priority asked for', async () => {
      const phone = fleet.add('iphone-and-pixel', { ios: 17 });
      const iphoneId = await register(phone, 'two-platforms');
      const pixel = `fcm-${crypto.randomUUID()}`;
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'two-platforms', platform: 'android', token: pixel })).status).toBe(200);
      const id = await startFor('two-platforms');
      expect((await reportToken(phone, id)).status).toBe(200);
      await call('PATCH', la(`/${id}`), { contentState: { progress: '70', detail: 'quiet' }, priority: 5, staleDate: Math.floor(Date.now() / 1000) + 600 });
      await eventually(() => expect(progressOn(phone, id)).toBe('70'));
      const toPixel = () => fcm.requests.filter((r) => r.body?.message?.token === pixel).map((r) => r.body.message);
      const update = await eventually(() => {
        const found = toPixel().find((m) => m.data.event === 'update');
        if (!found) throw new Error('no update on Android yet');
        return found;
      });
      expect(update.android.priority).toBe('normal');
      expect(update.android.collapse_key).toBe(id);
      expect(Number(update.android.ttl.replace('s', ''))).toBeGreaterThan(590);
      expect(Number(update.android.ttl.replace('s', ''))).toBeLessThanOrEqual(600);
      expect(JSON.parse(update.data.contentState)).toEqual({ progress: '70', detail: 'quiet' });
      await eventually(() => expect(toPixel().find((m) => m.data.event === 'start')?.android).toEqual({ priority: 'high', collapse_key: id, ttl: '43200s' }));
      const detail = (await admin('GET', `/api/admin/apps/${APP}/live-activities/${id}`)).body;
      expect(detail.instances.map((i: any) => i.platform).sort()).toEqual(['android', 'ios']);
      expect(detail.instances.find((i: any) => i.deviceId === iphoneId).tokenState).toBe('active');

      // An end with a later dismissalDate keeps the final state on both phones until then.
      const endOnPixel = (activityId: string) =>
        eventually(() => {
          const found = toPixel().find((m) => m.data.activityId === activityId && m.data.event === 'end');
          if (!found) throw new Error('no end on Android yet');
          return found;
        });
      const later = Math.floor(Date.now() / 1000) + 600;
      expect((await call('DELETE', la(`/${id}`), { contentState: { progress: '100', detail: 'done' }, dismissalDate: later })).status).toBe(200);
      await eventually(() => expect(phone.shows(id)).toMatchObject({ ended: true, contentState: { progress: '100', detail: 'done' }, dismissalDate: later }));
      expect((await endOnPixel(id)).data.dismissalAt).toBe(String(later * 1000));
      // Without one, the end removes the activity from both at once.
      const next = await startFor('two-platforms');
      expect((await reportToken(phone, next)).status).toBe(200);
      expect((await call('DELETE', la(`/${next}`))).status).toBe(200);
      await eventually(() => expect(phone.activities.get(next)?.ended).toBe(true));
      expect(phone.shows(next)).toBeUndefined();
      expect(Number((await endOnPixel(next)).data.dismissalAt)).toBeLessThanOrEqual(Date.now());
    }, 30_000);

    test('options are validated with errors naming the field', async () => {
      const phone = fleet.add('iphone-options', { ios: 18 });
      await register(phone, 'optional');
      const bad = async (method: string, path: string, body: unknown, field: string) => {
        const res = await call(method, path, body);
        expect(res.status).toBe(400);
        expect(res.body.detail).toContain(field);
      };
      const base = { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' }, targetUsers: ['optional'] };
      await bad('POST', la(), { ...base, priority: 7 }, 'priority');
      await bad('POST', la(), { ...base, staleDate: 'tomorrow' }, 'staleDate');
      await bad('POST', la(), { ...base, alert: { title: 'only a title' } }, 'alert.body');
      await bad('POST', la(), { ...base, relevanceScore: 'high' }, 'relevanceScore');
      const id = await startFor('optional', { progress: '1', detail: 'x' }, { staleDate: '2030-01-01T00:00:00Z', relevanceScore: 75 });
      await eventually(() => expect(phone.shows(id)).toMatchObject({ staleDate: 1893456000, relevanceScore: 75 }));
      await bad('PATCH', la(`/${id}`), { contentState: { progress: '2' }, staleDate: -5 }, 'staleDate');
      await bad('DELETE', la(`/${id}`), { dismissalDate: 'soon' }, 'dismissalDate');
      await bad('DELETE', la(`/${id}`), { contentState: { progress: 'lots' } }, 'contentState.progress');
      await bad('DELETE', la(`/${id}`), { alert: { title: 'a', body: 'b' } }, 'alert');
      // An end body that is not JSON is refused like any other body.
      const text = await fetch(`${server.url}${la(`/${id}`)}`, { method: 'DELETE', headers: { 'x-service-key': SECRET, 'content-type': 'text/plain' }, body: 'now' });
      expect(text.status).toBe(415);
      expect((await call('GET', la(`/${id}`))).body.state).toBe('Active');
    }, 30_000);

    test('an FCM INVALID_ARGUMENT about the message is recorded with the field Google names', async () => {
      const pixel = `fcm-${crypto.randomUUID()}`;
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'bad-message', platform: 'android', token: pixel })).status).toBe(200);
      const description = "Invalid value at 'message.data[0].value' (TYPE_STRING), <b>1</b>";
      fcm.respond((req) =>
        req.body.message.token === pixel ? { status: 400, errorCode: 'INVALID_ARGUMENT', violations: [{ field: 'message.data[0].value', description }] } : undefined,
      );
      try {
        await startFor('bad-message');
        const failed = await eventually(async () => {
          const found = (await admin('GET', `/api/admin/apps/${APP}/deliveries?endUserId=bad-message&status=failed`)).body.deliveries;
          if (found.length === 0) throw new Error('not failed yet');
          return found[0];
        });
        expect(failed.reason).toBe("INVALID_ARGUMENT: message.data[0].value: Invalid value at 'message.data[0].value' (TYPE_STRING), ?b?1?/b?");
      } finally {
        fcm.respond(undefined);
      }
    }, 30_000);
  });
});
