import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../lib/clock';
import { silentLogger } from '../lib/logger';
import type { ApnsCredentials } from '../modules/apps/credentials';
import { ApnsClient } from '../modules/delivery/providers/apns/apns.client';
import type { Http2Answer } from '../modules/delivery/providers/apns/apns.session';
import { PhoneFleet } from './apns-device-model';
import { startApnsStandin, type ApnsStandin } from './apns-standin';
import { apnsKey } from './delivery-fixtures';

const clock = new FakeClock();
const standins: ApnsStandin[] = [];
let client: ApnsClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const s of standins.splice(0)) await s.close();
});

async function setup(options: { phones?: PhoneFleet; environment?: 'production' | 'sandbox'; key?: ReturnType<typeof apnsKey> } = {}) {
  const key = options.key ?? apnsKey();
  const apns = await startApnsStandin({ keys: [key], bundleIds: ['com.x'], clock, phones: options.phones, environment: options.environment });
  standins.push(apns);
  const apnsClient = (client ??= new ApnsClient({ clock, logger: silentLogger, outbound: { allowPrivate: true } }));
  const creds: ApnsCredentials = { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, environment: 'production', ca: apns.ca };
  /** One request as the stand-in answers it (status, reason, headers, body), over real HTTP/2 TLS. */
  const call = async (method: string, path: string, headers: Record<string, string> = {}, body = '', as = creds) => {
    const answer = (await apnsClient.exchange(as, method, `${apns.url}${path}`, headers, body)) as Http2Answer;
    expect(answer).toHaveProperty('status');
    const reason = answer.status >= 400 ? (JSON.parse(answer.body) as { reason: string }).reason : undefined;
    return { status: answer.status, reason, headers: answer.headers, json: answer.body && !reason ? JSON.parse(answer.body) : undefined };
  };
  const create = async (policy: 0 | 1 = 0) => {
    const made = await call('POST', '/1/apps/com.x/channels', {}, JSON.stringify({ 'message-storage-policy': policy, 'push-type': 'LiveActivity' }));
    expect(made.status).toBe(201);
    return String(made.headers['apns-channel-id']);
  };
  const broadcast = (channelId: string, aps: object, headers: Record<string, string> = {}) =>
    call('POST', '/4/broadcasts/apps/com.x', { 'apns-channel-id': channelId, 'apns-push-type': 'liveactivity', 'apns-priority': '10', 'apns-expiration': '0', ...headers }, JSON.stringify({ aps }));
  return { apns, creds, key, call, create, broadcast };
}

describe('APNs stand-in: channel management', () => {
  test('create answers 201 with a base64 id, read gives the policy, list names it, delete answers 204 and the id is gone for good', async () => {
    const { apns, call, create } = await setup();
    const made = await call('POST', '/1/apps/com.x/channels', { 'apns-request-id': '2288cf3f-70d8-46a6-97d7-dd5d00867127' }, '{"message-storage-policy":1,"push-type":"LiveActivity"}');
    expect(made.status).toBe(201);
    expect(made.headers['apns-request-id']).toBe('2288cf3f-70d8-46a6-97d7-dd5d00867127');
    const id = String(made.headers['apns-channel-id']);
    expect(Buffer.from(id, 'base64').toString('base64')).toBe(id);
    expect((await call('GET', '/1/apps/com.x/channels', { 'apns-channel-id': id })).json).toEqual({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' });
    const other = await create(0);
    expect((await call('GET', '/1/apps/com.x/all-channels')).json).toEqual({ channels: [id, other] });
    expect((await call('DELETE', '/1/apps/com.x/channels', { 'apns-channel-id': id })).status).toBe(204);
    expect((await call('GET', '/1/apps/com.x/channels', { 'apns-channel-id': id })).reason).toBe('ChannelNotRegistered');
    expect((await call('DELETE', '/1/apps/com.x/channels', { 'apns-channel-id': id })).reason).toBe('ChannelNotRegistered');
    expect(apns.broadcast.ids('com.x')).toEqual([other]);
  });

  test('channels belong to one environment: a sandbox id is unknown to production', async () => {
    const key = apnsKey();
    const production = await setup({ key });
    const sandbox = await setup({ key, environment: 'sandbox' });
    const id = await sandbox.create();
    expect((await production.call('GET', '/1/apps/com.x/channels', { 'apns-channel-id': id })).reason).toBe('ChannelNotRegistered');
    expect(production.apns.broadcast.ids('com.x')).toEqual([]);
    expect(await production.create()).not.toBe(id);
  });

  test("refuses requests as Apple does, with Apple's reasons", async () => {
    const { apns, call, create } = await setup();
    const id = await create();
    const post = (body: string, path = '/1/apps/com.x/channels') => call('POST', path, {}, body);
    expect(await post('{nope')).toMatchObject({ status: 400, reason: 'BadRequestPayload' });
    expect(await post('{"message-storage-policy":0,"push-type":"LiveActivity","ttl":5}')).toMatchObject({ status: 400, reason: 'BadRequestParams' });
    expect(await post('{"message-storage-policy":2,"push-type":"LiveActivity"}')).toMatchObject({ status: 400, reason: 'BadRequestParams' });
    expect(await post('{"message-storage-policy":0}')).toMatchObject({ status: 400, reason: 'MissingPushType' });
    expect(await post('{"message-storage-policy":0,"push-type":"Alert"}')).toMatchObject({ status: 400, reason: 'InvalidPushType' });
    expect(await post('{"message-storage-policy":0,"push-type":"LiveActivity"}', '/1/apps/com.x.push-type.liveactivity/channels')).toMatchObject({ status: 400, reason: 'TopicDisallowed' });
    expect(await post('{"message-storage-policy":0,"push-type":"LiveActivity"}', '/1/apps/com.other/channels')).toMatchObject({ status: 400, reason: 'TopicDisallowed' });
    expect(await post('{}', '/1/apps/com.x/channel')).toMatchObject({ status: 404, reason: 'BadPath' });
    expect(await call('PUT', '/1/apps/com.x/channels', { 'apns-channel-id': id })).toMatchObject({ status: 405, reason: 'MethodNotAllowed' });
    expect(await call('POST', '/1/apps/com.x/all-channels')).toMatchObject({ status: 405, reason: 'MethodNotAllowed' });
    expect(await call('GET', '/1/apps/com.x/channels')).toMatchObject({ status: 400, reason: 'MissingChannelId' });
    expect(await call('GET', '/1/apps/com.x/channels', { 'apns-channel-id': 'not base64!' })).toMatchObject({ status: 400, reason: 'BadChannelId' });
    expect(await call('GET', '/1/apps/com.x/channels', { 'apns-channel-id': 'QUFBQQ=='.repeat(17) })).toMatchObject({ status: 400, reason: 'BadChannelId' });
    apns.broadcast.disableFeature('com.x');
    expect(await post('{"message-storage-policy":0,"push-type":"LiveActivity"}')).toMatchObject({ status: 400, reason: 'FeatureNotEnabled' });
    apns.broadcast.disableFeature('com.x', false);
    expect((await post('{"message-storage-policy":0,"push-type":"LiveActivity"}')).status).toBe(201);
  });

  test('a provider token of an unknown key is refused before anything else', async () => {
    const { call, creds } = await setup();
    const stranger = apnsKey();
    expect(await call('GET', '/1/apps/com.x/all-channels', {}, '', { ...creds, keyId: stranger.keyId, key: stranger.key })).toMatchObject({ status: 403, reason: 'InvalidProviderToken' });
  });
});

describe('APNs stand-in: broadcasts', () => {
  test("checks the channel, push type, priority, expiration against the channel's storage policy, and the 5,120-byte limit", async () => {
    const { apns, create, broadcast } = await setup();
    const noStorage = await create(0);
    const stored = await create(1);
    const aps = { timestamp: 1, event: 'update', 'content-state': { score: '1-0' } };
    const ok = await broadcast(noStorage, aps);
    expect(ok.status).toBe(200);
    expect(ok.headers['apns-unique-id']).toBeString();
    expect(ok.headers['apns-id']).toBeUndefined();
    expect(await broadcast('', aps)).toMatchObject({ status: 400, reason: 'MissingChannelId' });
    expect(await broadcast('***', aps)).toMatchObject({ status: 400, reason: 'BadChannelId' });
    expect(await broadcast('QUFBQQ==', aps)).toMatchObject({ status: 400, reason: 'ChannelNotRegistered' });
    expect(await broadcast(noStorage, aps, { 'apns-push-type': 'alert' })).toMatchObject({ status: 400, reason: 'InvalidPushType' });
    expect(await broadcast(noStorage, aps, { 'apns-priority': '7' })).toMatchObject({ status: 400, reason: 'BadPriority' });
    expect((await broadcast(noStorage, aps, { 'apns-priority': '1' })).status).toBe(200);
    expect(await broadcast(noStorage, aps, { 'apns-expiration': '1900000000' })).toMatchObject({ status: 400, reason: 'BadExpirationDate' });
    expect(await broadcast(noStorage, aps, { 'apns-expiration': 'soon' })).toMatchObject({ status: 400, reason: 'BadExpirationDate' });
    expect((await broadcast(stored, aps, { 'apns-expiration': '1900000000' })).status).toBe(200);
    const big = { ...aps, 'content-state': { text: 'x'.repeat(5100) } };
    expect(await broadcast(stored, big)).toMatchObject({ status: 413, reason: 'PayloadTooLarge' });
    const justFits = { ...aps, 'content-state': { text: 'x'.repeat(5120 - JSON.stringify({ aps: { ...aps, 'content-state': { text: '' } } }).length) } };
    expect((await broadcast(stored, justFits)).status).toBe(200);
    apns.broadcast.disableFeature('com.x');
    expect(await broadcast(stored, aps)).toMatchObject({ status: 400, reason: 'FeatureNotEnabled' });
  });

  test('an injected fault answers instead, and then the broadcast reaches no phone', async () => {
    const phones = new PhoneFleet(clock);
    const phone = phones.add('p');
    const { apns, create, broadcast } = await setup({ phones });
    const id = await create();
    phone.startOnChannel(id, { activityId: 'a1', contentState: { score: '0-0' } });
    apns.faults.set({ rate: 1, kinds: ['unavailable'], limit: 1 });
    const now = Math.floor(clock.now() / 1000);
    expect(await broadcast(id, { timestamp: now + 1, event: 'update', 'content-state': { score: '1-0' } })).toMatchObject({ status: 503, reason: 'ServiceUnavailable' });
    expect(phone.shows('a1')?.contentState).toEqual({ score: '0-0' });
    expect((await broadcast(id, { timestamp: now + 2, event: 'update', 'content-state': { score: '2-0' } })).status).toBe(200);
    expect(phone.shows('a1')?.contentState).toEqual({ score: '2-0' });
  });
});
