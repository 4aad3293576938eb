import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../lib/clock';
import { createLogger } from '../../lib/logger';
import { ApnsChannels } from '../delivery/providers/apns/apns.channels';
import { ApnsClient } from '../delivery/providers/apns/apns.client';
import { PhoneFleet } from '../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { eventually as eventuallyHolds } from '../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('broadcasts-e2e', (database) => {
  /**
   * Broadcast Live Activities through a served process (issue 31's "Done when"): the APNs stand-in
   * plays Apple's channel-management API and broadcast endpoint with modelled iPhones subscribed to
   * channels, the FCM stand-in delivers topic messages to subscribed Android devices. The test plays
   * the apps: the Android app subscribes to the topic its start message names.
   */

  const APP = 'bcast';
  const BUNDLE = 'com.example.bcast';
  const SECRET = 'sk_bcast_test_secret';
  const ADMIN = 'bcast-admin-token';
  const fleet = new PhoneFleet();
  let dir: string;
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let server: SpawnedServer;
  let key: ReturnType<typeof apnsKey>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-broadcasts-'));
    key = apnsKey();
    apns = await startApnsStandin({ keys: [key], environment: 'production', phones: fleet, bundleIds: [BUNDLE] });
    fcm = await startFcmStandin();
    receiver = await startWebhookReceiver();
    writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('bcast-project')));
    writeFileSync(join(dir, 'apns.p8'), key.key);
    writeFileSync(join(dir, 'ca.pem'), apns.ca);
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
        `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n` +
        `[apps.apns]\nbundle_id = "${BUNDLE}"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nenvironment = "production"\n` +
        `endpoint = "${apns.url}"\nchannels_endpoint = "${apns.url}"\nbroadcast_endpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
        `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
    );
    const hook = await serverClient(() => server.url, SECRET, ADMIN).admin('POST', `/api/admin/apps/${APP}/webhooks`, { url: receiver.url, events: ['broadcast.held', 'broadcast.ended'] });
    expect(hook.status).toBe(201);
    receiver.secret = hook.body.secret;
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    await apns?.close();
    await fcm?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const { call, admin } = serverClient(() => server.url, SECRET, ADMIN);
  const bc = (suffix = '') => `/api/apps/${APP}/broadcasts${suffix}`;

  /** The shared eventually, a failure showing the end of the server's output. */
  const eventually = <T>(check: () => T | Promise<T>) =>
    eventuallyHolds(check, { intervalMs: 25, detail: () => `server output:\n${server.output().slice(-3000)}` });

  /** Creates a broadcast and waits until Apple's channel exists; returns its record. */
  async function openBroadcast(label: string): Promise<any> {
    const made = await call('POST', bc(), { templateSlug: 'metric-live', attributes: { label }, contentState: { value: '0 - 0' } });
    expect(made.status).toBe(201);
    expect(made.body.channel).toEqual({ environment: 'production', state: 'creating' });
    return eventually(async () => {
      const read = await call('GET', bc(`/${made.body.id}`));
      expect(read.body.channel.state).toBe('open');
      return read.body;
    });
  }

  const broadcastsSent = (channelId: string) => apns.requests.filter((r) => r.path === `/4/broadcasts/apps/${BUNDLE}` && r.headers['apns-channel-id'] === channelId);
  const topicMessages = (topic: string) => fcm.requests.filter((r) => r.body.message.topic === topic);

  describe('broadcast Live Activities through a served process and the stand-ins', () => {
    test('create, start on an iOS 18 iPhone and an Android phone, 20 updates in order through one request each, end dismisses both and the channel is deleted', async () => {
      const iphone = fleet.add('iphone-18', { ios: 18 });
      const old = fleet.add('iphone-17', { ios: 17 });
      const pixel = 'pixel-fan-token';
      for (const [user, phone, osVersion] of [['fan-ios18', iphone, '18.2'], ['fan-ios17', old, '17.5']] as const)
        expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: user, platform: 'ios', token: phone.deviceToken, pushToStartToken: phone.pushToStartToken, osVersion })).status).toBe(200);
      const android = await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'fan-android', platform: 'android', token: pixel, osVersion: '15' });
      expect(android.body.device.osVersion).toBe('15');

      const broadcast = await openBroadcast('Lions v Tigers');
      const channelId: string = broadcast.channel.id;
      expect(apns.broadcast.ids(BUNDLE)).toContain(channelId);
      expect(broadcast.topic).toMatch(/^[a-zA-Z0-9\-_.~%]+$/);

      const started = await call('POST', bc(`/${broadcast.id}/subscribers`), { targetUsers: ['fan-ios18', 'fan-ios17', 'fan-android'] });
      expect(started.status).toBe(200);
      expect(started.body.started).toBe(2);
      const oldDevice = started.body.skipped[0];
      expect(oldDevice.reason).toBe('iOS 17.5 cannot start a broadcast Live Activity (iOS 18 or later)');
      // The iPhone on iOS 18 started the activity from a push-to-start naming the channel.
      const shown = await eventually(() => iphone.shows(broadcast.id) ?? Promise.reject(new Error('not started on the iPhone')));
      expect(shown.channelId).toBe(channelId);
      const start = apns.requests.find((r) => r.token === iphone.pushToStartToken)!;
      expect(start.body.aps['input-push-channel']).toBe(channelId);
      expect(start.body.aps['input-push-token']).toBeUndefined();
      // The iPhone known to run iOS 17 got nothing: Apple says it would not start.
      expect(apns.requests.some((r) => r.token === old.pushToStartToken)).toBe(false);
      // The Android app learns its topic from the start message and subscribes (FirebaseMessaging.subscribeToTopic).
      const startMessage = await eventually(() => fcm.inbox(pixel).find((m) => m.message.data.event === 'start') ?? Promise.reject(new Error('no start on Android')));
      expect(startMessage.message.data.topic).toBe(broadcast.topic);
      fcm.subscribe(pixel, startMessage.message.data.topic);

      for (let i = 1; i <= 20; i++) {
        expect((await call('PATCH', bc(`/${broadcast.id}`), { contentState: { value: `${i} - 0`, trend: 'up' }, priority: 5 })).status).toBe(200);
        await eventually(() => expect(iphone.shows(broadcast.id)?.contentState.value).toBe(`${i} - 0`));
        await eventually(() => expect(fcm.inbox(pixel).at(-1)?.message.data.contentState).toBe(JSON.stringify({ value: `${i} - 0`, trend: 'up' })));
      }
      // One request per update at each provider, whatever the audience; timestamps strictly increase.
      const sent = broadcastsSent(channelId);
      expect(sent).toHaveLength(20);
      expect(sent.every((r) => r.headers['apns-priority'] === '5' && r.headers['apns-expiration'] === '0')).toBe(true);
      const stamps = sent.map((r) => r.body.aps.timestamp as number).sort((a, b) => a - b);
      expect(new Set(stamps).size).toBe(20);
      expect(topicMessages(broadcast.topic)).toHaveLength(20);
      expect(iphone.shows(broadcast.id)!.ignored).toBe(0);
      const androidValues = fcm.inbox(pixel).filter((m) => m.via === 'topic').map((m) => JSON.parse(m.message.data.contentState).value);
      expect(androidValues).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1} - 0`));

      // priority "auto" (the default) counts per channel: under a budget of 1 the first update goes at 10,
      // the next at 5 (the explicit 5s above spent nothing), an update with an alert at 10 (issue 47).
      expect((await admin('PATCH', `/api/admin/apps/${APP}`, { liveActivityBudget: { priority10PerHour: 1 } })).status).toBe(200);
      const autos = [{ contentState: { value: '21 - 0', trend: 'up' } }, { contentState: { value: '22 - 0', trend: 'up' } }, { contentState: { value: '23 - 0', trend: 'up' }, alert: { title: 'Goal', body: '23 - 0' } }];
      for (const [i, body] of autos.entries()) {
        expect((await call('PATCH', bc(`/${broadcast.id}`), body)).status).toBe(200);
        await eventually(() => expect(broadcastsSent(channelId)).toHaveLength(21 + i));
      }
      expect(broadcastsSent(channelId).slice(20).map((r) => r.headers['apns-priority'])).toEqual(['10', '5', '10']);
      await eventually(() => expect(iphone.shows(broadcast.id)?.contentState.value).toBe('23 - 0'));
      expect((await admin('PATCH', `/api/admin/apps/${APP}`, { liveActivityBudget: { priority10PerHour: 10 } })).status).toBe(200);

      expect((await call('DELETE', bc(`/${broadcast.id}`))).status).toBe(200);
      await eventually(() => expect(iphone.shows(broadcast.id)).toBeUndefined());
      await eventually(() => expect(fcm.inbox(pixel).at(-1)?.message.data.event).toBe('end'));
      await eventually(() => expect(apns.broadcast.ids(BUNDLE)).not.toContain(channelId));
      const ended = await eventually(async () => {
        const read = (await call('GET', bc(`/${broadcast.id}`))).body;
        expect(read.channel.state).toBe('deleted');
        return read;
      });
      expect(ended).toMatchObject({ state: 'Ended', endReason: 'api', updatesSent: 24, subscribersStarted: 2 });
      expect((await call('PATCH', bc(`/${broadcast.id}`), { contentState: { value: 'late' } })).body.detail).toBe('broadcast is not active');
    }, 60_000);

    test('an iPhone whose OS version is unknown is sent the start; one on iOS 17 does not start it, as Apple documents', async () => {
      const phone = fleet.add('iphone-17-unknown', { ios: 17 });
      await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'fan-unknown', platform: 'ios', token: phone.deviceToken, pushToStartToken: phone.pushToStartToken });
      const broadcast = await openBroadcast('Unknown OS');
      expect((await call('POST', bc(`/${broadcast.id}/subscribers`), { targetUsers: ['fan-unknown'] })).body).toEqual({ started: 1, skipped: [] });
      await eventually(() => expect(phone.refusedStarts).toContainEqual({ activityId: broadcast.id, reason: 'input-push-channel needs iOS 18' }));
      expect(phone.shows(broadcast.id)).toBeUndefined();
    }, 30_000);

    test('ChannelNotRegistered and BadChannelId end the broadcast with the reason', async () => {
      for (const reason of ['ChannelNotRegistered', 'BadChannelId'] as const) {
        const broadcast = await openBroadcast(reason);
        apns.broadcast.refuseChannel(broadcast.channel.id, reason);
        expect((await call('PATCH', bc(`/${broadcast.id}`), { contentState: { value: '1 - 0' } })).status).toBe(200);
        const read = await eventually(async () => {
          const body = (await call('GET', bc(`/${broadcast.id}`))).body;
          expect(body.state).toBe('Ended');
          return body;
        });
        expect(read.endReason).toBe(`channel-gone: ${reason}`);
        expect(read.channel).toMatchObject({ state: 'deleted', reason: `channel-gone: ${reason}` });
        const told = await eventually(() => receiver.events.find((e) => e.data.broadcastId === broadcast.id) ?? Promise.reject(new Error('no webhook')));
        expect(told).toMatchObject({ type: 'broadcast.ended', data: { endReason: `channel-gone: ${reason}` } });
      }
    }, 30_000);

    test('FeatureNotEnabled holds the broadcast and tells the operator; CannotCreateChannelConfig from Apple ends it with channel-limit', async () => {
      apns.broadcast.disableFeature(BUNDLE);
      try {
        const made = await call('POST', bc(), { templateSlug: 'metric-live', attributes: { label: 'Off' }, contentState: { value: '0' } });
        const held = await eventually(async () => {
          const body = (await call('GET', bc(`/${made.body.id}`))).body;
          expect(body.channel.reason).toContain('FeatureNotEnabled');
          return body;
        });
        expect(held).toMatchObject({ state: 'Active', channel: { state: 'creating' } });
        expect(server.output()).toContain('broadcast held: Broadcast Capability is off');
        const told = await eventually(() => receiver.events.find((e) => e.data.broadcastId === made.body.id) ?? Promise.reject(new Error('no webhook')));
        expect(told.type).toBe('broadcast.held');
        expect(told.data.reason).toContain('enable Broadcast Capability');
      } finally {
        apns.broadcast.disableFeature(BUNDLE, false);
      }
      // Apple refuses the channel (channels Islet does not know, made by another tool, fill the app's 10,000).
      const limited = await startApnsStandinFull();
      expect(limited.status).toBe(201);
      const read = await eventually(async () => {
        const body = (await call('GET', bc(`/${limited.body.id}`))).body;
        expect(body.state).toBe('Ended');
        return body;
      });
      expect(read.channel).toMatchObject({ state: 'failed', reason: 'channel-limit' });
    }, 30_000);
  });

  describe('orphan channels (at Apple, unknown to Islet) through the admin API', () => {
    test('are listed as orphans and removable; a broadcast’s own channel is refused', async () => {
      // Another tool holding the same key makes a channel at Apple.
      const client = new ApnsClient({ clock: systemClock, logger: createLogger('silent'), outbound: { allowPrivate: true } });
      const creds = { bundleId: BUNDLE, teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production' as const, channelsEndpoint: apns.url, ca: apns.ca };
      const made = await new ApnsChannels(client, { clock: systemClock }).create(creds, 'production', 1);
      await client.close();
      if (made.kind !== 'created') throw new Error(made.kind);
      const ours = await openBroadcast('Ours');
      const listed = await admin('GET', `/api/admin/apps/${APP}/broadcast-channels`);
      expect(listed.body.environment).toBe('production');
      expect(listed.body.channels).toContainEqual({ id: made.channelId, orphan: true });
      expect(listed.body.channels).toContainEqual({ id: ours.channel.id, orphan: false });
      expect(listed.body.orphans).toBe(1);
      const refused = await admin('DELETE', `/api/admin/apps/${APP}/broadcast-channels?id=${encodeURIComponent(ours.channel.id)}`);
      expect(refused.body).toMatchObject({ status: 409, detail: 'the channel belongs to a broadcast: end the broadcast instead' });
      const removed = await admin('DELETE', `/api/admin/apps/${APP}/broadcast-channels?id=${encodeURIComponent(made.channelId)}`);
      expect(removed.body).toEqual({ channelId: made.channelId, deleted: true });
      expect(apns.broadcast.ids(BUNDLE)).not.toContain(made.channelId);
      expect(apns.broadcast.ids(BUNDLE)).toContain(ours.channel.id);
      expect((await admin('GET', `/api/admin/apps/${APP}/broadcast-channels`)).body.orphans).toBe(0);
      apns.broadcast.disableFeature(BUNDLE);
      try {
        const failed = await admin('GET', `/api/admin/apps/${APP}/broadcast-channels`);
        expect(failed.body).toMatchObject({ status: 502 });
        expect(failed.body.detail).toStartWith('APNs did not list the channels: FeatureNotEnabled');
      } finally {
        apns.broadcast.disableFeature(BUNDLE, false);
      }
    }, 30_000);
  });

  /** A create while the app already holds as many channels at the stand-in as it allows (CannotCreateChannelConfig). */
  async function startApnsStandinFull() {
    apns.broadcast.setLimit(apns.broadcast.ids(BUNDLE).length);
    try {
      const made = await call('POST', bc(), { templateSlug: 'metric-live', attributes: { label: 'Full' }, contentState: { value: '0' } });
      await eventually(async () => expect((await call('GET', bc(`/${made.body.id}`))).body.channel.state).not.toBe('creating'));
      return made;
    } finally {
      apns.broadcast.setLimit(undefined);
    }
  }
});
