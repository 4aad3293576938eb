import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../../../lib/clock';
import { silentLogger } from '../../../../lib/logger';
import { startApnsStandin, type ApnsStandin } from '../../../../test-support/apns-standin';
import { apnsKey } from '../../../../test-support/delivery-fixtures';
import type { ApnsCredentials } from '../../../apps/credentials';
import { FEATURE_OFF_HELP } from './apns.broadcast-outcome';
import { APNS_CHANNEL_LIMIT, ApnsChannels, channelsOrigin } from './apns.channels';
import { ApnsClient } from './apns.client';

const clock = new FakeClock();
const standins: ApnsStandin[] = [];
let client: ApnsClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const s of standins.splice(0)) await s.close();
});

/** Channel management against a production and a sandbox stand-in over HTTP/2 TLS on loopback. */
async function setup() {
  const key = apnsKey();
  const production = await startApnsStandin({ keys: [key], bundleIds: ['com.x'], clock });
  const sandbox = await startApnsStandin({ keys: [key], bundleIds: ['com.x'], clock, environment: 'sandbox' });
  standins.push(production, sandbox);
  const apns = (client = new ApnsClient({ clock, logger: silentLogger, outbound: { allowPrivate: true } }));
  const channels = new ApnsChannels(apns, { clock });
  // Both stand-ins present the same self-signed certificate.
  const hosts = { channelsEndpoint: production.url, sandboxChannelsEndpoint: `${sandbox.url}/` };
  const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production', ca: production.ca, ...hosts };
  return { production, sandbox, channels, creds, apns };
}

describe('APNs channel management client', () => {
  test("Apple's management hosts by environment (2196 production, 2195 sandbox), each overridable by the credentials on its own", () => {
    expect(channelsOrigin(undefined, 'production')).toBe('https://api-manage-broadcast.push.apple.com:2196');
    expect(channelsOrigin({}, 'sandbox')).toBe('https://api-manage-broadcast.sandbox.push.apple.com:2195');
    expect(channelsOrigin({ channelsEndpoint: 'https://127.0.0.1:9443/' }, 'production')).toBe('https://127.0.0.1:9443');
    expect(channelsOrigin({ channelsEndpoint: 'https://127.0.0.1:9443/' }, 'sandbox')).toBe('https://api-manage-broadcast.sandbox.push.apple.com:2195');
  });

  test('creates, reads, lists and deletes channels; each environment has its own', async () => {
    const { production, sandbox, channels, creds } = await setup();
    const made = await channels.create(creds, 'production', 1);
    if (made.kind !== 'created') throw new Error(`not created: ${JSON.stringify(made)}`);
    expect(production.requests[0]).toMatchObject({ method: 'POST', path: '/1/apps/com.x/channels', body: { 'message-storage-policy': 1, 'push-type': 'LiveActivity' } });
    expect(production.requests[0]!.headers['apns-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await channels.read(creds, 'production', made.channelId)).toEqual({ kind: 'found', policy: 1 });
    const inSandbox = await channels.create(creds, 'sandbox', 0);
    expect(inSandbox.kind).toBe('created');
    expect(sandbox.broadcast.ids('com.x')).toHaveLength(1);
    expect(await channels.read(creds, 'sandbox', made.channelId)).toEqual({ kind: 'channel-gone', reason: 'ChannelNotRegistered' });
    expect(await channels.list(creds, 'production')).toEqual({ kind: 'listed', channelIds: [made.channelId] });
    expect(await channels.remove(creds, 'production', made.channelId)).toEqual({ kind: 'deleted' });
    expect(await channels.remove(creds, 'production', made.channelId)).toEqual({ kind: 'channel-gone', reason: 'ChannelNotRegistered' });
    expect(await channels.list(creds, 'production')).toEqual({ kind: 'listed', channelIds: [] });
  });

  test('the 10,001st channel of an app is refused with channel-limit; deleting one makes room, with a new id', async () => {
    const { production, channels, creds } = await setup();
    const ids = new Set<string>();
    for (let batch = 0; batch < APNS_CHANNEL_LIMIT / 250; batch++) {
      const made = await Promise.all(Array.from({ length: 250 }, () => channels.create(creds, 'production', 0)));
      for (const m of made) if (m.kind === 'created') ids.add(m.channelId);
    }
    expect(ids.size).toBe(APNS_CHANNEL_LIMIT);
    expect(await channels.create(creds, 'production', 0)).toEqual({ kind: 'channel-limit', reason: 'CannotCreateChannelConfig' });
    const [first] = ids;
    expect(await channels.remove(creds, 'production', first!)).toEqual({ kind: 'deleted' });
    const again = await channels.create(creds, 'production', 0);
    expect(again.kind === 'created' && !ids.has(again.channelId)).toBe(true);
    expect(production.stats.connections).toBe(1);
    // Ten thousand requests: room for a busy shared machine (a time limit, not a timed assertion).
  }, 60_000);

  test('refusals and failures come back as outcomes: feature off, bad key, throttled, APNs failing, APNs away', async () => {
    const { production, channels, creds } = await setup();
    production.broadcast.disableFeature('com.x');
    expect(await channels.create(creds, 'production', 0)).toEqual({ kind: 'feature-off', reason: FEATURE_OFF_HELP });
    production.broadcast.disableFeature('com.x', false);
    const stranger = apnsKey();
    expect(await channels.list({ ...creds, keyId: stranger.keyId, key: stranger.key }, 'production')).toEqual({ kind: 'pause-channel', reason: 'InvalidProviderToken' });
    expect(await channels.read(creds, 'production', 'not base64!')).toEqual({ kind: 'channel-gone', reason: 'BadChannelId' });
    production.faults.set({ rate: 1, kinds: ['too-many'], retryAfterS: 30, limit: 1 });
    expect(await channels.create(creds, 'production', 0)).toEqual({ kind: 'retry', reason: 'TooManyRequests', afterMs: 30_000, scope: 'token' });
    production.faults.set({ rate: 1, kinds: ['internal'], limit: 1 });
    expect(await channels.list(creds, 'production')).toMatchObject({ kind: 'retry', reason: 'InternalServerError', scope: 'channel' });
    await production.goAway();
    expect((await channels.list(creds, 'production')).kind).toBe('unreachable');
  });

  test('without allow_private_endpoints a loopback management host is refused before connecting', async () => {
    const { production, creds } = await setup();
    const strict = new ApnsClient({ clock, logger: silentLogger });
    const channels = new ApnsChannels(strict, { clock });
    const refused = await channels.create(creds, 'production', 0);
    expect(refused.kind).toBe('pause-channel');
    expect(refused.kind === 'pause-channel' && refused.reason).toContain('loopback');
    expect(production.requests).toHaveLength(0);
    await strict.close();
  });
});
