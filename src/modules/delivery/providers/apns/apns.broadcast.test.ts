import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../../../lib/clock';
import { silentLogger } from '../../../../lib/logger';
import { PhoneFleet } from '../../../../test-support/apns-device-model';
import { startApnsStandin, type ApnsStandin } from '../../../../test-support/apns-standin';
import { apnsKey } from '../../../../test-support/delivery-fixtures';
import type { ApnsCredentials } from '../../../apps/credentials';
import { ApnsBroadcaster, broadcastOrigin, type BroadcastRequest } from './apns.broadcast';
import { FEATURE_OFF_HELP } from './apns.broadcast-outcome';
import { ApnsChannels, type StoragePolicy } from './apns.channels';
import { ApnsClient } from './apns.client';

const clock = new FakeClock();
let apns: ApnsStandin | undefined;
let client: ApnsClient | undefined;
afterEach(async () => {
  await client?.close();
  await apns?.close();
  client = apns = undefined;
});

/** A broadcaster and channel client against one stand-in (HTTP/2 TLS on loopback) with modelled iPhones. */
async function setup() {
  const key = apnsKey();
  const phones = new PhoneFleet(clock);
  const standin = (apns = await startApnsStandin({ keys: [key], bundleIds: ['com.x'], clock, phones }));
  const apnsClient = (client = new ApnsClient({ clock, logger: silentLogger, outbound: { allowPrivate: true } }));
  const channels = new ApnsChannels(apnsClient, { clock });
  const broadcaster = new ApnsBroadcaster(apnsClient, { clock });
  // The stand-in serves device pushes, broadcasts and channel management on one port.
  const hosts = { endpoint: standin.url, channelsEndpoint: standin.url, broadcastEndpoint: standin.url };
  const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production', ca: standin.ca, ...hosts };
  const channel = async (policy: StoragePolicy = 0) => {
    const made = await channels.create(creds, 'production', policy);
    if (made.kind !== 'created') throw new Error(`no channel: ${JSON.stringify(made)}`);
    return made.channelId;
  };
  const now = () => Math.floor(clock.now() / 1000);
  const request = (channelId: string, aps: object, extra: Partial<BroadcastRequest> = {}): BroadcastRequest => ({
    creds,
    environment: 'production',
    channelId,
    priority: 10,
    expiration: 0,
    body: JSON.stringify({ aps }),
    ...extra,
  });
  return { standin, phones, channels, broadcaster, creds, channel, request, now, apnsClient };
}

describe('APNs broadcast client', () => {
  test("Apple's device-push hosts by default (one connection pool with device pushes), each environment overridable by the credentials", () => {
    expect(broadcastOrigin(undefined, 'production')).toBe('https://api.push.apple.com');
    expect(broadcastOrigin({}, 'sandbox')).toBe('https://api.sandbox.push.apple.com');
    expect(broadcastOrigin({ sandboxBroadcastEndpoint: 'https://127.0.0.1:9444/' }, 'sandbox')).toBe('https://127.0.0.1:9444');
    expect(broadcastOrigin({ sandboxBroadcastEndpoint: 'https://127.0.0.1:9444/' }, 'production')).toBe('https://api.push.apple.com');
  });

  test('one request updates every subscribed iPhone, in timestamp order, and an end dismisses them', async () => {
    const { standin, phones, broadcaster, channel, request, now } = await setup();
    const id = await channel();
    const fans = [phones.add('a'), phones.add('b'), phones.add('c')];
    for (const [i, fan] of fans.entries()) fan.startOnChannel(id, { activityId: `bc_${i}`, contentState: { score: '0-0' } });
    const start = now();
    for (let goal = 1; goal <= 5; goal++) {
      const outcome = await broadcaster.send(request(id, { timestamp: start + goal, event: 'update', 'content-state': { score: `${goal}-0` } }));
      expect(outcome.kind).toBe('delivered');
    }
    expect(standin.requests.filter((r) => r.path === '/4/broadcasts/apps/com.x')).toHaveLength(5);
    const sent = standin.requests.at(-1)!;
    expect(sent.headers).toMatchObject({ 'apns-channel-id': id, 'apns-push-type': 'liveactivity', 'apns-priority': '10', 'apns-expiration': '0' });
    expect(fans.map((f, i) => f.shows(`bc_${i}`)?.contentState.score)).toEqual(['5-0', '5-0', '5-0']);
    const ended = await broadcaster.send(request(id, { timestamp: start + 6, event: 'end', 'content-state': { score: '5-0' }, 'dismissal-date': start }));
    expect(ended).toMatchObject({ kind: 'delivered', providerId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(fans.flatMap((f) => f.lockScreen())).toEqual([]);
  });

  test("each broadcast error is mapped: the channel gone ends the broadcast, FeatureNotEnabled tells the operator, a bad request fails, APNs' trouble is retried", async () => {
    const { standin, broadcaster, channels, creds, channel, request, now } = await setup();
    const id = await channel(0);
    const aps = { timestamp: now(), event: 'update', 'content-state': { score: '1-0' } };
    expect(await broadcaster.send(request('QUFBQQ==', aps))).toEqual({ kind: 'channel-gone', reason: 'ChannelNotRegistered' });
    expect(await broadcaster.send(request('not base64!', aps))).toEqual({ kind: 'channel-gone', reason: 'BadChannelId' });
    expect(await broadcaster.send(request('', aps))).toEqual({ kind: 'failed', reason: 'MissingChannelId' });
    expect(await broadcaster.send(request(id, aps, { expiration: now() + 3600 }))).toEqual({ kind: 'failed', reason: 'BadExpirationDate' });
    expect(await broadcaster.send(request(id, aps, { priority: 7 as never }))).toEqual({ kind: 'failed', reason: 'BadPriority' });
    const big = { ...aps, 'content-state': { text: 'x'.repeat(5200) } };
    expect(await broadcaster.send(request(id, big))).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
    expect(await broadcaster.send(request(id, aps, { creds: { ...creds, bundleId: 'com.x.push-type.liveactivity' } }))).toEqual({ kind: 'pause-channel', reason: 'TopicDisallowed' });
    const stranger = apnsKey();
    expect(await broadcaster.send(request(id, aps, { creds: { ...creds, keyId: stranger.keyId, key: stranger.key } }))).toEqual({ kind: 'pause-channel', reason: 'InvalidProviderToken' });
    standin.broadcast.disableFeature('com.x');
    expect(await broadcaster.send(request(id, aps))).toEqual({ kind: 'feature-off', reason: FEATURE_OFF_HELP });
    standin.broadcast.disableFeature('com.x', false);
    standin.faults.set({ rate: 1, kinds: ['too-many'], retryAfterS: 5, limit: 1 });
    expect(await broadcaster.send(request(id, aps))).toEqual({ kind: 'retry', reason: 'TooManyRequests', afterMs: 5000, scope: 'token' });
    standin.faults.set({ rate: 1, kinds: ['unavailable'], limit: 1 });
    expect(await broadcaster.send(request(id, aps))).toMatchObject({ kind: 'retry', reason: 'ServiceUnavailable', scope: 'channel' });
    expect((await broadcaster.send(request(id, aps))).kind).toBe('delivered');
    expect(await channels.remove(creds, 'production', id)).toEqual({ kind: 'deleted' });
    expect(await broadcaster.send(request(id, aps))).toEqual({ kind: 'channel-gone', reason: 'ChannelNotRegistered' });
    await standin.goAway();
    expect((await broadcaster.send(request(id, aps))).kind).toBe('unreachable');
  });

  test('broadcasts and device pushes to the same host share one pooled connection', async () => {
    const { standin, phones, broadcaster, channel, request, now, creds, apnsClient } = await setup();
    const id = await channel();
    const phone = phones.add('fan');
    const pushed = await apnsClient.send({
      appId: 'a',
      provider: 'apns',
      url: `${standin.url}/3/device/${phone.deviceToken}`,
      headers: { 'apns-push-type': 'alert', 'apns-topic': 'com.x' },
      body: '{"aps":{"alert":{"title":"Hi","body":"there"}}}',
      apns: creds,
    });
    expect(pushed.kind).toBe('delivered');
    expect((await broadcaster.send(request(id, { timestamp: now(), event: 'update', 'content-state': {} }))).kind).toBe('delivered');
    expect(standin.stats.connections).toBe(1);
  });
});
