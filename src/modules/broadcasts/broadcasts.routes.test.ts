import { afterEach, beforeAll, expect, test } from 'bun:test';
import { apnsToken } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness, type TestDatabase } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import type { AppContext } from '../../context';
import { SimulatorTransport } from '../delivery/providers/simulator.transport';
import { usedMinutes } from '../live-activities/live-activities.usage';
import { enforceQuotas } from '../scheduler/jobs/quota.job';
import { retentionJob } from '../scheduler/jobs/retention.job';
import { BroadcastWorker } from './broadcasts.worker';
import { broadcastsRepository } from './broadcasts.repository';

let h: Harness<AppContext>;
let database: TestDatabase;
afterEach(() => h?.close());

const PATH = '/api/apps/a1/broadcasts';
const score = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0 - 0' } };

async function setup(toml = '') {
  h = await createHarness({ toml, database });
  await h.createApp({ id: 'a1' });
}

const create = (body: unknown = score) => h.service('a1', 'POST', PATH, body);

/** The broadcast worker with only the simulator (the app has no credentials). */
const worker = () => new BroadcastWorker(h.ctx, { apns: new SimulatorTransport(), fcm: new SimulatorTransport(), webpush: new SimulatorTransport(), simulator: new SimulatorTransport() });

forEachDatabase('the broadcasts resource (app.handle, simulator transport)', (db) => {
  beforeAll(() => (database = db));
  test('create answers 201 with a simulated channel id and an FCM topic at once; get and list show it', async () => {
    await setup();
    const made = await create();
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ appId: 'a1', templateSlug: 'metric-live', state: 'Active', storagePolicy: 0, updatesSent: 0, subscribersStarted: 0 });
    expect(made.body.channel).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9+/]{22}==$/), environment: 'simulator', state: 'open' });
    expect(made.body.topic).toBe(`islet-a1-${made.body.id}`);
    expect((await h.service('a1', 'GET', `${PATH}/${made.body.id}`)).body).toEqual(made.body);
    const list = await h.service('a1', 'GET', `${PATH}?state=Active`);
    expect(list.body).toEqual({ broadcasts: [made.body], total: 1 });
  });

  test('a create retried with the same Idempotency-Key answers the first broadcast again and makes no second one', async () => {
    await setup();
    const { appSecret } = await h.createApp({ id: 'a2' });
    const headers = { 'x-service-key': appSecret, 'idempotency-key': 'create-1' };
    const body = { body: score, headers };
    const first = await h.request('POST', '/api/apps/a2/broadcasts', body);
    const again = await h.request('POST', '/api/apps/a2/broadcasts', body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect((await h.service('a2', 'GET', '/api/apps/a2/broadcasts')).body.total).toBe(1);
  });

  test('validation and errors as for activities: template, strings only, unknown fields, the 5,120-byte limit named, attributes immutable', async () => {
    await setup();
    expect((await create({ ...score, templateSlug: 'nope' })).body.detail).toBe('invalid template slug');
    expect((await create({ ...score, contentState: { value: 3 } })).status).toBe(400);
    expect((await create({ ...score, contentState: { value: '1', extra: 'x' } })).body.detail).toBe('contentState.extra is not a field of template metric-live');
    expect((await create({ ...score, storagePolicy: 2 })).body.detail).toBe('storagePolicy must be 0 or 1');
    expect((await create({ ...score, contentState: { value: 'x'.repeat(5200) } })).body.detail).toBe('payload exceeds 5120 bytes');
    const id = (await create()).body.id;
    expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { value: '1' }, attributes: { label: 'x' } })).body.detail).toBe('attributes cannot be changed');
    expect((await h.service('a1', 'PATCH', `${PATH}/bc_missing`, { contentState: { value: '1' } })).body).toMatchObject({ status: 404, detail: 'broadcast not found' });
    expect((await h.request('GET', `${PATH}/${id}`)).body).toMatchObject({ status: 401, detail: 'X-Service-Key header is required' });
    expect((await h.service('a1', 'DELETE', `${PATH}/${id}`)).status).toBe(200);
    expect((await h.service('a1', 'DELETE', `${PATH}/${id}`)).body).toMatchObject({ status: 409, detail: 'broadcast is not active' });
  });

  test('updates are queued latest-wins with strictly increasing APNs timestamps; the worker sends one of each and deletes the simulated channel after the end', async () => {
    await setup();
    const id = (await create()).body.id;
    for (const value of ['1 - 0', '2 - 0', '3 - 0']) expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { value } })).status).toBe(200);
    const ops = await broadcastsRepository(h.ctx.db.sql).ops(id);
    expect(ops.map((o) => o.status)).toEqual(['superseded', 'superseded', 'pending']);
    await worker().drain();
    expect((await h.service('a1', 'GET', `${PATH}/${id}`)).body.updatesSent).toBe(1);
    expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { value: '4 - 0' } })).status).toBe(200);
    const stamps = (await broadcastsRepository(h.ctx.db.sql).ops(id)).filter((o) => o.status !== 'superseded').map((o) => JSON.parse(o.content!).apnsTimestamp as number);
    expect(stamps[1]).toBeGreaterThan(stamps[0]!);
    expect((await h.service('a1', 'DELETE', `${PATH}/${id}`)).status).toBe(200);
    // The end supersedes the update not sent yet: one update and the end reach the providers.
    await worker().drain();
    await worker().drain();
    const ended = (await h.service('a1', 'GET', `${PATH}/${id}`)).body;
    expect(ended).toMatchObject({ state: 'Ended', endReason: 'api', updatesSent: 2, channel: { state: 'deleted' } });
  });

  test('subscribers: a push-to-start with input-push-channel per iPhone, a data message naming the topic per Android device; an iPhone on iOS 17 is skipped with a reason', async () => {
    await setup();
    const register = (body: Record<string, unknown>) => h.service('a1', 'POST', '/api/apps/a1/devices', body);
    await register({ endUserId: 'u1', platform: 'ios', token: apnsToken('a'), pushToStartToken: apnsToken('b'), osVersion: '18.1' });
    const old = (await register({ endUserId: 'u2', platform: 'ios', token: apnsToken('c'), pushToStartToken: apnsToken('d'), osVersion: '17.4' })).body.device.id;
    await register({ endUserId: 'u3', platform: 'android', token: 'fcm-token-u3' });
    expect((await register({ endUserId: 'u4', platform: 'ios', token: apnsToken('e'), osVersion: 'eighteen' })).body.detail).toBe('osVersion must be a version such as 18.2');
    const made = (await create()).body;
    const res = await h.service('a1', 'POST', `${PATH}/${made.id}/subscribers`, {});
    expect(res.body).toEqual({ started: 2, skipped: [{ deviceId: old, reason: 'iOS 17.4 cannot start a broadcast Live Activity (iOS 18 or later)' }] });
    const rows = await testRows<{ content: string }>(h.ctx, `SELECT content FROM messages WHERE kind = 'la_start'`);
    const content = JSON.parse(rows[0]!.content);
    expect(content).toMatchObject({ event: 'start', activityId: made.id, inputPushChannel: made.channel.id, topic: made.topic });
    expect((await h.service('a1', 'GET', `${PATH}/${made.id}`)).body.subscribersStarted).toBe(2);
  });

  test('subscribers of an audience: only the tagged end users, on the platform asked; with targetUsers too: 400', async () => {
    await setup();
    const register = (body: Record<string, unknown>) => h.service('a1', 'POST', '/api/apps/a1/devices', body);
    const gold = (await register({ endUserId: 'u1', platform: 'ios', token: apnsToken('a'), pushToStartToken: apnsToken('b'), osVersion: '18.1' })).body.device.id;
    await register({ endUserId: 'u1', platform: 'android', token: 'fcm-token-u1' });
    await register({ endUserId: 'u2', platform: 'ios', token: apnsToken('c'), pushToStartToken: apnsToken('d'), osVersion: '18.1' });
    expect((await h.service('a1', 'PUT', '/api/apps/a1/users/u1', { tags: { plan: 'gold' } })).status).toBe(200);
    const made = (await create()).body;
    const audience = { tags: { plan: 'gold' }, platform: 'ios' };
    const both = await h.service('a1', 'POST', `${PATH}/${made.id}/subscribers`, { audience, targetUsers: ['u2'] });
    expect(both.body.detail).toBe('audience and targetUsers cannot be given together');
    expect((await h.service('a1', 'POST', `${PATH}/${made.id}/subscribers`, { audience })).body).toEqual({ started: 1, skipped: [] });
    const starts = await testRows<{ deviceId: string }>(h.ctx, `SELECT d.device_id AS "deviceId" FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.kind = 'la_start'`);
    expect(starts.map((r) => r.deviceId)).toEqual([gold]);
  });

  test('the 10,001st channel of an app and environment is refused before Apple is asked; plans cap broadcasts running at once', async () => {
    await setup('[plans.pro]\nlive_activities = true\nbroadcasts = 2\n');
    await h.ctx.db.write(async (tx) => {
      for (let i = 0; i < 10_000; i++)
        await broadcastsRepository(tx).insert({ id: `bc_old${i}`, appId: 'a1', templateSlug: 'metric-live', attributes: '{}', contentState: '{}', storagePolicy: 0, environment: 'simulator', channelId: `c${i}`, channelState: 'open', topic: `t${i}`, lastTimestamp: 0, startedAt: 0 });
    });
    // Ended broadcasts whose channels are not deleted yet (dismissal dates ahead) still hold them.
    await testRows(h.ctx, `UPDATE broadcasts SET state = 'Ended', ended_at = 0`);
    const refused = await create();
    expect(refused.body).toMatchObject({ status: 409 });
    expect(refused.body.detail).toBe("channel limit reached: the app holds 10000 broadcast channels in simulator (Apple's limit); end broadcasts or remove orphan channels first");
    await testRows(h.ctx, `DELETE FROM broadcasts`);
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(201);
    expect((await create()).body).toMatchObject({ status: 429, detail: 'broadcasts running at once are limited to 2 on your current plan' });
  });

  test('minutes are metered per broadcast: its running time, whatever its audience, until it ends', async () => {
    await setup();
    const id = (await create()).body.id;
    h.clock.advance(10 * 60_000);
    expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(10);
    expect((await h.service('a1', 'DELETE', `${PATH}/${id}`)).status).toBe(200);
    h.clock.advance(60 * 60_000);
    expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(10);
  });

  test('on a plan without overage, running broadcasts end with reason quota once the minutes are used up', async () => {
    await setup('[plans.small]\nlive_activities = true\nminutes = 30\n');
    await h.admin('PATCH', '/api/admin/apps/a1', { plan: 'small' });
    const id = (await create()).body.id;
    h.clock.advance(29 * 60_000);
    expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(0);
    h.clock.advance(60_000);
    expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(1);
    expect((await h.service('a1', 'GET', `${PATH}/${id}`)).body).toMatchObject({ state: 'Ended', endReason: 'quota' });
    expect((await create()).body).toMatchObject({ status: 429, detail: 'live activity minutes limit exceeded for this billing period' });
  });

  test('retention deletes finished broadcast steps after deliveries_days and ended broadcasts whose channel is gone after activities_days', async () => {
    await setup('[retention]\nactivities_days = 30\ndeliveries_days = 7\n');
    const DAY = 24 * 3600_000;
    const old = (await create()).body.id;
    expect((await h.service('a1', 'PATCH', `${PATH}/${old}`, { contentState: { value: '1' } })).status).toBe(200);
    expect((await h.service('a1', 'DELETE', `${PATH}/${old}`)).status).toBe(200);
    await worker().drain();
    await worker().drain();
    const running = (await create()).body.id;
    expect((await h.service('a1', 'PATCH', `${PATH}/${running}`, { contentState: { value: '2' } })).status).toBe(200);
    h.clock.advance(8 * DAY);
    await worker().drain();
    await retentionJob(h.ctx).run(h.clock.now());
    // The running broadcast's update was sent just now: it stays; the old one's steps are gone.
    expect((await broadcastsRepository(h.ctx.db.sql).ops(old)).length).toBe(0);
    expect((await broadcastsRepository(h.ctx.db.sql).ops(running)).map((o) => o.status)).toEqual(['done']);
    expect((await h.service('a1', 'GET', `${PATH}/${old}`)).status).toBe(200);
    h.clock.advance(60 * DAY);
    await retentionJob(h.ctx).run(h.clock.now());
    expect((await h.service('a1', 'GET', `${PATH}/${old}`)).status).toBe(404);
    expect((await h.service('a1', 'GET', `${PATH}/${running}`)).body.state).toBe('Active');
  });
});
