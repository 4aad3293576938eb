import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../lib/clock';
import { silentLogger } from '../lib/logger';
import type { ApnsCredentials } from '../modules/apps/credentials';
import { ApnsClient } from '../modules/delivery/providers/apns/apns.client';
import type { Http2Answer } from '../modules/delivery/providers/apns/apns.session';
import { ATTRIBUTES_TYPE, PhoneFleet, type ModelPhone } from './apns-device-model';
import { startApnsStandin, type ApnsStandin } from './apns-standin';
import { apnsKey } from './delivery-fixtures';

const standins: ApnsStandin[] = [];
let client: ApnsClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const s of standins.splice(0)) await s.close();
});

/** A production and a sandbox stand-in sharing one fleet of modelled iPhones. */
async function setup() {
  const clock = new FakeClock();
  const phones = new PhoneFleet(clock);
  const key = apnsKey();
  const production = await startApnsStandin({ keys: [key], clock, phones, environment: 'production' });
  const sandbox = await startApnsStandin({ keys: [key], clock, phones, environment: 'sandbox' });
  standins.push(production, sandbox);
  const apns = (client = new ApnsClient({ clock, logger: silentLogger, outbound: { allowPrivate: true } }));
  const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production', ca: production.ca };
  const call = async (host: ApnsStandin, method: string, path: string, headers: Record<string, string>, body: unknown) =>
    (await apns.exchange(creds, method, `${host.url}${path}`, headers, typeof body === 'string' ? body : JSON.stringify(body))) as Http2Answer;
  const createChannel = async (host = production) =>
    String((await call(host, 'POST', '/1/apps/com.x/channels', {}, { 'message-storage-policy': 0, 'push-type': 'LiveActivity' })).headers['apns-channel-id']);
  const now = () => Math.floor(clock.now() / 1000);
  /** A push-to-start to the phone that names a channel, as Islet's start for a broadcast would. */
  const startOnChannel = (phone: ModelPhone, channelId: string, activityId = 'bc_1', host = production) =>
    call(host, 'POST', `/3/device/${phone.pushToStartToken}`, { 'apns-push-type': 'liveactivity', 'apns-topic': 'com.x.push-type.liveactivity', 'apns-priority': '10' }, {
      aps: {
        timestamp: now(),
        event: 'start',
        'attributes-type': ATTRIBUTES_TYPE,
        attributes: { activityId, templateSlug: 'score', values: { home: 'A', away: 'B' } },
        'content-state': { score: '0-0' },
        alert: { title: 'Kick-off', body: 'A v B' },
        'input-push-channel': channelId,
      },
    });
  const broadcast = (channelId: string, aps: object, host = production) =>
    call(host, 'POST', '/4/broadcasts/apps/com.x', { 'apns-channel-id': channelId, 'apns-push-type': 'liveactivity', 'apns-priority': '10', 'apns-expiration': '0' }, { aps });
  return { clock, phones, production, sandbox, call, createChannel, startOnChannel, broadcast, now };
}

describe('modelled iPhones on broadcast channels', () => {
  test('an iOS 18 iPhone started with input-push-channel shows broadcasts in timestamp order, ignores older ones, and an end dismisses it at its dismissal date', async () => {
    const { clock, phones, createChannel, startOnChannel, broadcast, now } = await setup();
    const phone = phones.add('fan', { ios: 18 });
    const channelId = await createChannel();
    expect((await startOnChannel(phone, channelId)).status).toBe(200);
    expect(phone.shows('bc_1')).toMatchObject({ channelId, contentState: { score: '0-0' }, attributes: { home: 'A', away: 'B' } });
    // A channel start asks for no update token.
    expect(phone.updateTokens.has('bc_1')).toBe(false);

    const start = now();
    expect((await broadcast(channelId, { timestamp: start + 2, event: 'update', 'content-state': { score: '2-0' } })).status).toBe(200);
    // Reordered in transit: an older broadcast arrives after a newer one.
    expect((await broadcast(channelId, { timestamp: start + 1, event: 'update', 'content-state': { score: '1-0' } })).status).toBe(200);
    expect(phone.shows('bc_1')).toMatchObject({ contentState: { score: '2-0' }, ignored: 1 });

    await broadcast(channelId, { timestamp: start + 3, event: 'end', 'content-state': { score: '2-1' }, 'dismissal-date': start + 60 });
    expect(phone.shows('bc_1')).toMatchObject({ ended: true, contentState: { score: '2-1' } });
    // Ended: later broadcasts change nothing.
    await broadcast(channelId, { timestamp: start + 4, event: 'update', 'content-state': { score: '9-9' } });
    expect(phone.shows('bc_1')?.contentState).toEqual({ score: '2-1' });
    clock.advance(61_000);
    expect(phone.shows('bc_1')).toBeUndefined();
  });

  test('an iOS 17 iPhone does not start an activity from a push-to-start carrying input-push-channel, nor with the channel push type', async () => {
    const { phones, createChannel, startOnChannel, broadcast, now } = await setup();
    const old = phones.add('old', { ios: 17 });
    const channelId = await createChannel();
    // APNs accepts the push; the phone does not start the activity (Apple: "the Live Activity will not start").
    expect((await startOnChannel(old, channelId)).status).toBe(200);
    expect(old.shows('bc_1')).toBeUndefined();
    expect(old.refusedStarts).toEqual([{ activityId: 'bc_1', reason: 'input-push-channel needs iOS 18' }]);
    expect(() => old.startOnChannel(channelId, { activityId: 'bc_2' })).toThrow('the channel push type needs iOS 18');
    await broadcast(channelId, { timestamp: now() + 1, event: 'update', 'content-state': { score: '1-0' } });
    expect(old.lockScreen()).toEqual([]);
  });

  test('a channel of another environment, or none, starts nothing; a broadcast reaches only phones of its own environment', async () => {
    const { phones, sandbox, createChannel, startOnChannel, broadcast, now } = await setup();
    const prod = phones.add('prod', { ios: 18 });
    const dev = phones.add('dev', { ios: 18, environment: 'sandbox' });
    const sandboxChannel = await createChannel(sandbox);
    await startOnChannel(prod, sandboxChannel);
    expect(prod.refusedStarts).toEqual([{ activityId: 'bc_1', reason: 'not a valid channel' }]);
    expect(() => prod.startOnChannel(sandboxChannel, { activityId: 'bc_2' })).toThrow('is not a valid channel');

    dev.startOnChannel(sandboxChannel, { activityId: 'bc_3', contentState: { score: '0-0' } });
    expect((await broadcast(sandboxChannel, { timestamp: now() + 1, event: 'update', 'content-state': { score: '1-0' } })).status).toBe(400);
    expect((await broadcast(sandboxChannel, { timestamp: now() + 1, event: 'update', 'content-state': { score: '1-0' } }, sandbox)).status).toBe(200);
    expect(dev.shows('bc_3')?.contentState).toEqual({ score: '1-0' });
  });

  test('after the channel is deleted, broadcasts are refused and the phone keeps what it last showed', async () => {
    const { phones, production, call, createChannel, broadcast, now } = await setup();
    const phone = phones.add('fan');
    const channelId = await createChannel();
    phone.startOnChannel(channelId, { activityId: 'bc_1', contentState: { score: '0-0' } });
    expect((await call(production, 'DELETE', '/1/apps/com.x/channels', { 'apns-channel-id': channelId }, '')).status).toBe(204);
    const refused = await broadcast(channelId, { timestamp: now() + 1, event: 'update', 'content-state': { score: '1-0' } });
    expect([refused.status, JSON.parse(refused.body).reason]).toEqual([400, 'ChannelNotRegistered']);
    expect(phone.shows('bc_1')?.contentState).toEqual({ score: '0-0' });
  });
});

describe("an app's own ActivityAttributes type (issue 39)", () => {
  const struct = {
    attributes: { driver: { type: 'String' as const } },
    contentState: { eta: { type: 'Int' as const }, at: { type: 'Date' as const, optional: true }, stops: { type: 'String' as const, array: true, optional: true } },
  };
  const start = (attributes: unknown, contentState: unknown, type = 'RideAttributes') => ({
    aps: { event: 'start', timestamp: 100, 'attributes-type': type, attributes, 'content-state': contentState },
  });
  const headers = { 'apns-push-type': 'liveactivity' };

  test("decodes as JSONDecoder's defaults do: a Date from seconds since 2001, optionals may be absent, unknown keys ignored", () => {
    const phone = new PhoneFleet().add('typed');
    const token = phone.declareAttributesType('RideAttributes', struct);
    phone.receive(token, headers, start({ driver: 'Ana', isletActivityId: 'la_1', extra: 1 }, { eta: 3, at: 60 }), 'production');
    expect(phone.shows('la_1')).toMatchObject({ attributesType: 'RideAttributes', attributes: { driver: 'Ana' }, contentState: { eta: 3, at: Date.UTC(2001, 0, 1, 0, 1) } });
  });

  test('drops what does not decode, a start for another type, and a typed start at the IsletActivityAttributes token', () => {
    const phone = new PhoneFleet().add('strict');
    const token = phone.declareAttributesType('RideAttributes', struct);
    phone.receive(token, headers, start({ driver: 'Ana', isletActivityId: 'la_1' }, { eta: '3' }), 'production');
    phone.receive(token, headers, start({ isletActivityId: 'la_2' }, { eta: 3 }), 'production');
    phone.receive(token, headers, start({ driver: 'Ana', isletActivityId: 'la_3' }, { eta: 3, at: '2026-11-28T09:30:00Z' }), 'production');
    phone.receive(token, headers, start({ driver: 'Ana', isletActivityId: 'la_4' }, { eta: 3 }, 'MatchAttributes'), 'production');
    phone.receive(phone.pushToStartToken, headers, start({ driver: 'Ana', isletActivityId: 'la_5' }, { eta: 3 }), 'production');
    expect(phone.activities.size).toBe(0);
    expect(phone.refusedStarts).toEqual([
      { activityId: 'la_1', reason: 'does not decode: typeMismatch eta' },
      { activityId: 'la_2', reason: 'does not decode: keyNotFound driver' },
      { activityId: 'la_3', reason: 'does not decode: typeMismatch at' },
    ]);
  });
});
