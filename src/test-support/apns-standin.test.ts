import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../lib/clock';
import { silentLogger } from '../lib/logger';
import { ApnsClient } from '../modules/delivery/providers/apns/apns.client';
import type { ApnsCredentials } from '../modules/apps/credentials';
import { apnsToken, startApnsStandin, type ApnsStandin } from './apns-standin';
import { apnsKey } from './delivery-fixtures';

let apns: ApnsStandin;
const clients: ApnsClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await apns?.close();
});

const clientClock = new FakeClock();

/** Sends one request with the given credentials and headers, returning what APNs-the-stand-in said. */
async function send(creds: ApnsCredentials, headers: Record<string, string>, options: { token?: string; body?: string } = {}) {
  const client = new ApnsClient({ clock: clientClock, logger: silentLogger, outbound: { allowPrivate: true } });
  clients.push(client);
  return client.send({
    appId: 'a',
    provider: 'apns',
    url: `${apns.url}/3/device/${options.token ?? apnsToken()}`,
    headers,
    body: options.body ?? '{"aps":{"alert":"hi"}}',
    apns: { ...creds, endpoint: apns.url, ca: apns.ca },
  });
}

describe('APNs stand-in', () => {
  test('accepts a token signed by a registered key and checks the topic, push type, token and size', async () => {
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], bundleIds: ['com.x'], clock: clientClock });
    const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production' };
    const alert = { 'apns-push-type': 'alert', 'apns-topic': 'com.x' };
    expect(await send(creds, alert)).toMatchObject({ kind: 'delivered' });
    expect(await send(creds, { 'apns-push-type': 'alert' })).toEqual({ kind: 'pause-channel', reason: 'MissingTopic' });
    expect(await send(creds, { 'apns-push-type': 'alert', 'apns-topic': 'com.other' })).toEqual({ kind: 'pause-channel', reason: 'TopicDisallowed' });
    expect(await send(creds, { 'apns-push-type': 'liveactivity', 'apns-topic': 'com.x' })).toEqual({ kind: 'pause-channel', reason: 'BadTopic' });
    expect(await send(creds, alert, { token: 'not-hex' })).toEqual({ kind: 'drop-token', reason: 'BadDeviceToken' });
    expect(await send(creds, alert, { body: JSON.stringify({ aps: { alert: 'x'.repeat(5000) } }) })).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
    expect(await send(creds, { ...alert, 'apns-priority': '7' })).toEqual({ kind: 'failed', reason: 'BadPriority' });
  });

  test('refuses provider tokens of another key, another team, or older than an hour', async () => {
    const key = apnsKey();
    const standinClock = new FakeClock(clientClock.now());
    apns = await startApnsStandin({ keys: [key], clock: standinClock });
    const alert = { 'apns-push-type': 'alert', 'apns-topic': 'com.x' };
    const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production' };
    const impostor = apnsKey(key.keyId, key.teamId);
    expect(await send({ ...creds, key: impostor.key }, alert)).toEqual({ kind: 'pause-channel', reason: 'InvalidProviderToken' });
    expect(await send({ ...creds, teamId: 'OTHERTEAM1' }, alert)).toEqual({ kind: 'pause-channel', reason: 'InvalidProviderToken' });
    expect(await send({ ...creds, keyId: 'UNKNOWN' }, alert)).toEqual({ kind: 'pause-channel', reason: 'InvalidProviderToken' });
    standinClock.advance(61 * 60_000);
    expect(await send(creds, alert)).toEqual({ kind: 'retry', reason: 'ExpiredProviderToken', afterMs: undefined });
    expect(apns.providerTokens.size).toBe(0);
  });
});
