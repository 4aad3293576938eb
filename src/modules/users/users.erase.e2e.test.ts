import { afterAll, beforeAll, expect, test } from 'bun:test';
import { PhoneFleet } from '../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { forEachDatabase } from '../../test-support/databases';
import { eventually, until } from '../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';

forEachDatabase('end-user-erasure-e2e', () => {
  /**
   * Issue 50 point 2 through a served process: right after DELETE …/users/{id} answers, nothing of
   * the person is readable through the admin API but what their pending end push needs; once that
   * end push has gone, that goes too, at once (the retention job runs hourly). Counts stay.
   */
  const APP = 'erasure';
  const SECRET = 'sk_erasure_e2e';
  const PERSON = 'fay-7c1d';
  const fleet = new PhoneFleet();
  const iphone = fleet.add('fay-iphone');
  const other = fleet.add('gus-iphone');
  const pixel = `fcm-fay-${crypto.randomUUID()}`;
  const device = { locale: 'fr-CA', timeZone: 'America/Toronto', osVersion: '17.4' };
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let served: ServedApp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], phones: fleet });
    fcm = await startFcmStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more:
        `plan = "pro"\n[apps.apns]\nbundle_id = "com.example.erasure"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'apns.p8': key.key, 'ca.pem': apns.ca, 'firebase.json': JSON.stringify(fcm.serviceAccount('erasure-project')) },
    });
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, {
      version: 1,
      status: 'Live',
      templates: [{ slug: 'ride', title: 'Hello {{name}}', body: 'Your driver waits, {{name}}' }],
    });
    expect(release.status).toBe(201);
    for (const [name, body] of [
      ['iphone', { endUserId: PERSON, platform: 'ios', token: iphone.deviceToken, pushToStartToken: iphone.pushToStartToken, ...device }],
      ['pixel', { endUserId: PERSON, platform: 'android', token: pixel, ...device, osVersion: '14' }],
      ['other', { endUserId: 'gus', platform: 'ios', token: other.deviceToken, pushToStartToken: other.pushToStartToken }],
    ] as const) {
      const registered = await call('POST', `/api/apps/${APP}/devices`, body);
      expect(registered.status).toBe(200);
      ids[name] = registered.body.device.id;
    }
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await apns?.close();
    await fcm?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');

  /** Every admin answer that could hold the person: devices, deliveries (each in detail), activities. */
  const adminTexts = async (activityId: string, waiting: 'except-waiting' | 'all') => {
    const texts: string[] = [];
    const get = async (path: string) => {
      const answer = await admin('GET', `/api/admin/apps/${APP}${path}`);
      texts.push(JSON.stringify(answer.body));
      return answer.body;
    };
    await get('/devices?limit=100');
    const { deliveries } = await get('/deliveries?limit=100');
    for (const d of deliveries) {
      const detail = await admin('GET', `/api/admin/apps/${APP}/deliveries/${d.id}`);
      // The end push keeps what it needs to go (its content, one message for every device) while one of its deliveries waits.
      const keepsContent = waiting === 'except-waiting' && detail.body.kind === 'la_end';
      texts.push(JSON.stringify(keepsContent ? { ...detail.body, content: undefined } : detail.body));
    }
    texts.push(JSON.stringify((await call('GET', `/api/apps/${APP}/live-activities?limit=100`)).body));
    texts.push(JSON.stringify((await admin('GET', `/api/admin/apps/${APP}/live-activities/${activityId}`)).body));
    return texts.join('\n');
  };
  const personal = () => [PERSON, 'Fayzenbach', 'Fay-Secret-Label', 'fr-CA', 'America/Toronto', '17.4', iphone.deviceToken, iphone.pushToStartToken, pixel];
  const leaks = (text: string) => personal().filter((value) => text.includes(value));

  test('right after the erase only the pending end push is left; once it went, nothing; counts stay', async () => {
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'ride', targetUsers: [PERSON], variables: { name: 'Fayzenbach' } });
    expect(sent.body.messageCount).toBe(2);
    await until('both devices have the notification', () => iphone.notifications.length === 1 && fcm.inbox(pixel).length === 1);
    const start = { templateSlug: 'progress-bar', attributes: { label: 'Fay-Secret-Label' }, contentState: { progress: '10' }, targetUsers: [PERSON] };
    const started = await call('POST', `/api/apps/${APP}/live-activities`, start);
    const activityId: string = started.body.activities[0].id;
    await until('both devices show the activity', () => iphone.shows(activityId) !== undefined && fcm.inbox(pixel).some((m) => m.message.data?.event === 'start'));
    // Before: the person is there to read (the test would prove nothing otherwise).
    await eventually(async () => expect(leaks(await adminTexts(activityId, 'all'))).toEqual(personal()));
    const status = async () => (await call('GET', `/api/apps/${APP}/notifications/${sent.body.messageId}`)).body.deliveries;
    await eventually(async () => expect((await status()).sent).toBe(2));
    const counted = await status();

    // The iPhone's update token is not reported yet: its end push is held, so the device and activity wait.
    const erased = await call('DELETE', `/api/apps/${APP}/users/${PERSON}`);
    expect(erased.body).toEqual({ endUserId: PERSON, removed: { devices: 2, tokens: 3, tags: 0, liveActivities: 1, tester: false } });
    expect(leaks(await adminTexts(activityId, 'except-waiting'))).toEqual([]);
    const devices = (await admin('GET', `/api/admin/apps/${APP}/devices?limit=100`)).body.devices;
    const kept = devices.find((d: { id: string }) => d.id === ids.iphone);
    expect(kept).toMatchObject({ endUserId: null, hasPushToStartToken: false });
    expect(devices.find((d: { id: string }) => d.id === ids.other)).toMatchObject({ endUserId: 'gus', hasPushToStartToken: true });
    expect(kept).not.toContainKeys(['locale', 'timeZone', 'osVersion']);
    // One convention: an anonymous row says null, never ''.
    const activity = (await admin('GET', `/api/admin/apps/${APP}/live-activities/${activityId}`)).body;
    expect(activity).toMatchObject({ endUserId: null, attributes: {}, contentState: {} });
    const deliveries = (await admin('GET', `/api/admin/apps/${APP}/deliveries?limit=100`)).body.deliveries;
    expect(deliveries.filter((d: { deviceId: string | null; endUserId: string | null }) => d.deviceId === '' || d.endUserId === '')).toEqual([]);
    expect(await status()).toEqual(counted);

    // The phone hands the app its update token; the held end push goes, and with it the rest.
    const token = iphone.updateTokens.get(activityId)!;
    expect((await call('PUT', `/api/apps/${APP}/live-activities/${activityId}/push-token`, { token, deviceId: ids.iphone })).status).toBe(200);
    await until('the iPhone ended the activity', () => iphone.activities.get(activityId)?.ended === true);
    await eventually(async () => expect((await admin('GET', `/api/admin/apps/${APP}/live-activities/${activityId}`)).status).toBe(404), { timeoutMs: 5_000 });
    const after = await adminTexts(activityId, 'all');
    expect([...leaks(after), token].filter((value) => after.includes(value))).toEqual([]);
    expect((await admin('GET', `/api/admin/apps/${APP}/devices?limit=100`)).body.devices.map((d: { id: string }) => d.id)).toEqual([ids.other]);
    const notifications = (await admin('GET', `/api/admin/apps/${APP}/deliveries?kind=notification`)).body.deliveries;
    expect(notifications.map((d: Record<string, unknown>) => [d.deviceId, d.endUserId, d.tokenId, d.sentPayload, d.status])).toEqual(Array(2).fill([null, null, null, undefined, 'sent']));
    expect(await status()).toEqual(counted);
  }, 60_000);
});
