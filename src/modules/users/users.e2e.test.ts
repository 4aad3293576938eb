import { afterAll, beforeAll, expect, test } from 'bun:test';
import { PhoneFleet } from '../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { forEachDatabase } from '../../test-support/databases';
import { eventually, until } from '../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';

forEachDatabase('end-users-e2e', () => {
  /**
   * Issue 38 parts 1 and 2 through a real server process, modelled iPhones behind the APNs stand-in
   * and Android phones at the FCM stand-in: tags, a send to an audience, erasure.
   */
  const APP = 'tags';
  const SECRET = 'sk_end_users_e2e';
  const fleet = new PhoneFleet();
  const phones = { gold: fleet.add('gold-iphone'), platinum: fleet.add('platinum-iphone'), free: fleet.add('free-iphone'), untagged: fleet.add('untagged-iphone') };
  const goldPixel = `fcm-gold-${crypto.randomUUID()}`;
  const erasedPixel = `fcm-erased-${crypto.randomUUID()}`;
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let served: ServedApp;

  beforeAll(async () => {
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], phones: fleet });
    fcm = await startFcmStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more:
        `plan = "pro"\n[apps.apns]\nbundle_id = "com.example.tags"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'apns.p8': key.key, 'ca.pem': apns.ca, 'firebase.json': JSON.stringify(fcm.serviceAccount('tags-project')) },
    });
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'offer', title: 'Offer', body: 'For you' }] });
    expect(release.status).toBe(201);
    for (const [endUserId, platform, token] of [
      ['ada', 'ios', phones.gold.deviceToken],
      ['ada', 'android', goldPixel],
      ['bob', 'ios', phones.platinum.deviceToken],
      ['cy', 'ios', phones.free.deviceToken],
      ['dan', 'ios', phones.untagged.deviceToken],
      ['fay', 'android', erasedPixel],
    ] as const) {
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform, token })).status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    await apns?.close();
    await fcm?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
  const users = (id: string) => `/api/apps/${APP}/users/${id}`;

  test('tags set by PUT and PATCH; a send to gold or platinum iPhones reaches exactly those; with targetUsers it is refused', async () => {
    expect((await call('PUT', users('ada'), { tags: { plan: 'silver', country: 'DE' } })).status).toBe(200);
    const patched = await call('PATCH', users('ada'), { tags: { plan: 'gold', country: null } });
    expect(patched.body).toMatchObject({ endUserId: 'ada', tags: { plan: 'gold' } });
    expect(patched.body.devices).toHaveLength(2);
    expect((await call('PUT', users('bob'), { tags: { plan: 'platinum' } })).body.tags).toEqual({ plan: 'platinum' });
    expect((await call('PUT', users('cy'), { tags: { plan: 'free' } })).status).toBe(200);
    expect((await call('PUT', users('ada'), { tags: { 'no spaces': 'x' } })).body.detail).toBe('tag key "no spaces" must be 1 to 64 letters, digits, _, -, . or :');

    const audience = { tags: { plan: ['gold', 'platinum'] }, platform: 'ios' };
    expect((await call('POST', `/api/apps/${APP}/notifications/audience-count`, { audience })).body).toEqual({ devices: 2, users: 2 });
    const sent = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'offer', audience });
    expect(sent.body).toEqual({ messageCount: 2, messageId: expect.stringMatching(/^msg_/) });
    await until('both iPhones have the offer', () => phones.gold.pushes.length === 1 && phones.platinum.pushes.length === 1);
    await eventually(async () => expect((await call('GET', `/api/apps/${APP}/notifications/${sent.body.messageId}`)).body.deliveries.sent).toBe(2));
    // The others got nothing: not the free or untagged iPhones, not the gold user's Android phone.
    expect([phones.free.pushes.length, phones.untagged.pushes.length, fcm.inbox(goldPixel).length]).toEqual([0, 0, 0]);

    const both = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'offer', audience, targetUsers: ['ada'] });
    expect(both.body).toEqual({ title: 'Bad Request', status: 400, detail: 'audience and targetUsers cannot be given together' });
  }, 60_000);

  test('erase: the active activity gets its end push, then no device or tag is theirs and a later send (to them, to everyone) queues nothing for them', async () => {
    expect((await call('PUT', users('fay'), { tags: { plan: 'gold' } })).status).toBe(200);
    const start = { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' }, targetUsers: ['fay'] };
    const started = await call('POST', `/api/apps/${APP}/live-activities`, start);
    expect(started.body.activityCount).toBe(1);
    const events = () => fcm.inbox(erasedPixel).map((m) => m.message.data.event);
    await until('the phone shows the activity', () => events().includes('start'));

    const erased = await call('DELETE', users('fay'));
    expect(erased.body).toEqual({ endUserId: 'fay', removed: { devices: 1, tokens: 1, tags: 1, liveActivities: 1, tester: false } });
    await until('the end push reached the phone', () => events().includes('end'));
    // Once its end push went, the erased activity goes at once (not at the next retention run).
    await eventually(async () => expect((await admin('GET', `/api/admin/apps/${APP}/live-activities/${started.body.activities[0].id}`)).status).toBe(404));

    expect((await call('GET', users('fay'))).status).toBe(404);
    expect((await admin('GET', `/api/admin/apps/${APP}/devices?endUserId=fay`)).body.total).toBe(0);
    const later = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'offer', targetUsers: ['fay'] });
    expect(later.body).toEqual({ messageCount: 0, messageId: null });
    expect((await call('POST', `/api/apps/${APP}/notifications/audience-count`, { audience: { tags: { plan: 'gold' } } })).body).toEqual({ devices: 2, users: 1 });
    const inboxBefore = fcm.inbox(erasedPixel).length;
    const everyone = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'offer' });
    expect(everyone.body.messageCount).toBe(5);
    await eventually(async () => expect((await call('GET', `/api/apps/${APP}/notifications/${everyone.body.messageId}`)).body.deliveries.sent).toBe(5));
    expect(fcm.inbox(erasedPixel)).toHaveLength(inboxBefore);
  }, 60_000);
});
