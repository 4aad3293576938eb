import { afterEach, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import type { AppContext } from '../../context';
import { apnsToken } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { failInserts } from '../../test-support/test-sql';
import type { LiveActivityContent } from '../delivery/message-content';
import { apnsRequest } from '../delivery/payloads';
import { endActivities, NO_PUSH_TO_START_TOKEN } from './live-activities.delivery';
import { activitiesPath, connect, count, progress, queuedFor, sign, start } from '../../test-support/live-activity-fixtures';
import { liveActivitiesRepository } from './live-activities.repository';
import { tokensRepository } from '../tokens/tokens.repository';

forEachDatabase('live-activity delivery', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const PATH = activitiesPath('a1');
  const HOUR = 3_600_000;
  let signingSecret = '';

  async function setup() {
    h = await createHarness({ database });
    signingSecret = (await h.createApp({ id: 'a1' })).signingSecret;
  }

  /** Gives the app APNs credentials (nothing is sent: no delivery worker runs in these tests). */
  async function withApns() {
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const res = await h.admin('PUT', '/api/admin/apps/a1/apns', { bundleId: 'com.example', teamId: 'TEAM123456', keyId: 'KEY1234567', key });
    if (res.status !== 200) throw new Error(`apns: ${res.status}`);
  }

  /** u1 with an older Android phone and a newer iPhone; returns the activity id and device ids. */
  async function iosActivity() {
    const android = await connect(h, 'a1', 'u1', { platform: 'android' });
    h.clock.advance(1000);
    const iphone = await connect(h, 'a1', 'u1', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
    const id: string = (await start(h, 'a1', { ...progress, targetUsers: ['u1'] })).body.activities[0].id;
    return { id, android, iphone };
  }

  const reportToken = (id: string, headers: Record<string, string>, body: unknown = { token: apnsToken('a1b2c3') }) =>
    h.request('PUT', `${PATH}/${id}/push-token`, { body, headers });

  /** Makes inserts into a table fail (all, or those for one device), as a crash or a full disk would midway. */
  const breakTable = (table: 'deliveries' | 'activities', deviceId?: string) => failInserts(h.ctx, table, deviceId ? `NEW.device_id = '${deviceId}'` : undefined);

  describe('what a start queues', () => {
    test('one start message per activity, delivered to each device of the end user; an iPhone without push-to-start fails visibly', async () => {
      await setup();
      const android = await connect(h, 'a1', 'u1', { platform: 'android' });
      h.clock.advance(1);
      const iphone = await connect(h, 'a1', 'u1', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
      h.clock.advance(1);
      const olderIos = await connect(h, 'a1', 'u1', { platform: 'ios' });
      const id = (await start(h, 'a1')).body.activities[0].id;
      const [message, ...rest] = (await queuedFor(h, id));
      expect(rest).toEqual([]);
      expect(message!.kind).toBe('la_start');
      expect(message!.content).toEqual({
        type: 'live_activity',
        event: 'start',
        activityId: id,
        templateSlug: 'progress-bar',
        attributes: { label: 'Uploading' },
        contentState: { progress: '10', detail: '1 of 10' },
        timestamp: h.clock.now(),
        apnsTimestamp: Math.floor(h.clock.now() / 1000),
        alert: { title: 'Uploading', body: '1 of 10' },
        web: { title: 'Uploading', body: '10% · 1 of 10' },
        // No priority asked: `auto`, which sends a start at 10 (the APNs default).
        autoPriority: true,
      });
      expect(message!.deliveries).toEqual([
        { deviceId: android, status: 'pending', reason: null },
        { deviceId: iphone, status: 'pending', reason: null },
        { deviceId: olderIos, status: 'failed', reason: NO_PUSH_TO_START_TOKEN },
      ]);
    });

    test('the alert falls back along the template: progress without detail shows the percentage', async () => {
      await setup();
      await connect(h, 'a1', 'u1');
      const id = (await start(h, 'a1', { ...progress, contentState: { progress: '42' } })).body.activities[0].id;
      expect((await queuedFor(h, id))[0]!.content.alert).toEqual({ title: 'Uploading', body: '42%' });
    });
  });

  describe('updates and ends of an iOS activity wait for its push token', () => {
    test('held until the token arrives (latest wins), then released; later ones go at once', async () => {
      await setup();
      await withApns();
      const { id, android, iphone } = await iosActivity();
      await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '20' } });
      await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '30' } });
      let [, first, second] = (await queuedFor(h, id));
      // Neither device got the first update yet: the second supersedes it on both (latest wins).
      expect(first!.deliveries).toEqual([
        { deviceId: android, status: 'superseded', reason: 'superseded by a newer event' },
        { deviceId: iphone, status: 'superseded', reason: 'superseded by a newer event' },
      ]);
      expect(second!.content).toMatchObject({ event: 'update', contentState: { progress: '30' }, attributes: { label: 'Uploading' } });
      expect(second!.deliveries).toEqual([
        { deviceId: android, status: 'pending', reason: null },
        { deviceId: iphone, status: 'held', reason: null },
      ]);

      const res = await reportToken(id, { 'x-end-user-signature': sign(signingSecret, 'u1') });
      expect(res.body).toEqual({ success: true });
      [, , second] = (await queuedFor(h, id));
      expect(second!.deliveries.map((d) => d.status)).toEqual(['pending', 'pending']);
      expect(await tokensRepository(h.ctx.db.sql).activityToken(id, iphone)).toMatchObject({ value: apnsToken('a1b2c3'), state: 'active', kind: 'apns_activity' });

      await h.service('a1', 'DELETE', `${PATH}/${id}`);
      const end = (await queuedFor(h, id)).at(-1)!;
      expect(end.kind).toBe('la_end');
      // Without a dismissalDate the end removes it from the device at once: its dismissal date is the end's own time.
      expect(end.content).toMatchObject({ event: 'end', contentState: { progress: '30' }, dismissalAt: h.clock.now() });
      expect(end.deliveries.map((d) => d.status)).toEqual(['pending', 'pending']);
    });

    test('a token reported after the end still releases the held end, so the device removes the activity', async () => {
      await setup();
      await withApns();
      const { id } = await iosActivity();
      await h.service('a1', 'DELETE', `${PATH}/${id}`);
      expect((await queuedFor(h, id)).at(-1)!.deliveries.map((d) => d.status)).toEqual(['pending', 'held']);
      expect((await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, { token: apnsToken('late') })).status).toBe(200);
      expect((await queuedFor(h, id)).at(-1)!.deliveries.map((d) => d.status)).toEqual(['pending', 'pending']);
    });

    test('the token report takes the service key or the signature of the activity’s own end user', async () => {
      await setup();
      await withApns();
      const { id } = await iosActivity();
      const wrongUser = await reportToken(id, { 'x-end-user-signature': sign(signingSecret, 'u2') });
      expect(wrongUser.body).toEqual({ title: 'Unauthorized', status: 401, detail: 'invalid end user signature' });
      expect((await reportToken('la_nope', { 'x-end-user-signature': sign(signingSecret, 'u1') })).status).toBe(401);
      expect((await reportToken(id, {})).body.detail).toBe('X-Service-Key or X-End-User-Signature header is required');
      const unknown = await h.service('a1', 'PUT', `${PATH}/la_nope/push-token`, { token: apnsToken('x') });
      expect(unknown.body).toEqual({ title: 'Not Found', status: 404, detail: 'live activity not found' });
      expect((await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, {})).body.detail).toBe('token is required');
      expect((await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, { token: apnsToken('abc') })).status).toBe(200);
    });
    test('a report names its device: required with two iPhones, refused for a device that is not one of the end user’s iPhones', async () => {
      await setup();
      await withApns();
      const { id, android } = await iosActivity();
      const second = await connect(h, 'a1', 'u1', { platform: 'ios', pushToStartToken: apnsToken() });
      const other = await connect(h, 'a1', 'u2', { platform: 'ios', pushToStartToken: apnsToken() });
      const missing = await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, { token: apnsToken() });
      expect(missing.body).toEqual({ title: 'Bad Request', status: 400, detail: 'deviceId is required: the end user has more than one iOS device' });
      for (const deviceId of [android, other, 'dev_unknown']) {
        const res = await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, { token: apnsToken(), deviceId });
        expect(res.body.detail).toBe("deviceId is not an iOS device of the activity's end user");
      }
      // The second iPhone registered after the start: its report gives it an instance, and the next update reaches it.
      expect((await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, { token: apnsToken(), deviceId: second })).status).toBe(200);
      await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '60' } });
      expect((await queuedFor(h, id)).at(-1)!.deliveries.find((d) => d.deviceId === second)?.status).toBe('pending');
    });

    test('options travel with the event: the caller’s alert replaces the template’s on start, an update carries one only when given', async () => {
      await setup();
      await connect(h, 'a1', 'u1', { platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
      const alert = { title: 'Big upload', body: 'Go!', sound: 'default' };
      const id = (await start(h, 'a1', { ...progress, alert, priority: 5, staleDate: 1_900_000_000, relevanceScore: 0.5 })).body.activities[0].id;
      expect((await queuedFor(h, id))[0]!.content).toMatchObject({ alert, priority: 5, staleDate: 1_900_000_000_000, relevanceScore: 0.5 });
      await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '20' } });
      expect((await queuedFor(h, id)).at(-1)!.content.alert).toBeUndefined();
      await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '30' }, alert: { title: 'Now', body: '30%' }, staleDate: '2030-01-01T00:00:00.000Z' });
      expect((await queuedFor(h, id)).at(-1)!.content).toMatchObject({ alert: { title: 'Now', body: '30%' }, staleDate: Date.parse('2030-01-01T00:00:00Z') });
      const end = await h.service('a1', 'DELETE', `${PATH}/${id}`, { contentState: { progress: '100' }, dismissalDate: '2030-01-01T01:00:00Z', priority: 5 });
      expect(end.status).toBe(200);
      expect((await queuedFor(h, id)).at(-1)!.content).toMatchObject({ event: 'end', contentState: { progress: '100' }, dismissalAt: Date.parse('2030-01-01T01:00:00Z'), priority: 5 });
      // The final state is the activity's state now.
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${id}`)).body.contentState).toEqual({ progress: '100' });
      // Each event's APNs timestamp is newer than the last, all within the same second.
      const stamps = (await queuedFor(h, id)).map((m) => m.content.apnsTimestamp);
      expect(stamps).toEqual([0, 1, 2, 3].map((i) => stamps[0] + i));
    });

    test('without APNs credentials nothing waits: the simulator shows what would be sent', async () => {
      await setup();
      const { id, iphone } = await iosActivity();
      await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '50' } });
      const update = (await queuedFor(h, id)).at(-1)!;
      expect(update.deliveries.find((d) => d.deviceId === iphone)?.status).toBe('pending');
    });
  });

  describe('one transaction: nothing accepted without its queued deliveries', () => {
    test('when queueing fails midway through a start, no activity and nothing queued remains, and the caller gets a 500', async () => {
      await setup();
      await connect(h, 'a1', 'u1');
      await connect(h, 'a1', 'u2');
      await breakTable('deliveries', await connect(h, 'a1', 'u3'));
      const res = await h.service('a1', 'POST', PATH, progress);
      expect(res.status).toBe(500);
      expect(JSON.stringify(res.body)).not.toContain('disk I/O');
      expect([(await count(h, 'activities')), (await count(h, 'messages')), (await count(h, 'deliveries'))]).toEqual([0, 0, 0]);
    });

    test('when writing the activities fails, nothing queued for them remains', async () => {
      await setup();
      for (const u of ['u1', 'u2']) await connect(h, 'a1', u);
      await breakTable('activities');
      expect((await h.service('a1', 'POST', PATH, progress)).status).toBe(500);
      expect([(await count(h, 'activities')), (await count(h, 'messages')), (await count(h, 'deliveries'))]).toEqual([0, 0, 0]);
    });

    test('when queueing fails during an update or an end, the activity is unchanged', async () => {
      await setup();
      const { id } = await iosActivity();
      await breakTable('deliveries');
      expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '99' } })).status).toBe(500);
      expect((await h.service('a1', 'DELETE', `${PATH}/${id}`)).status).toBe(500);
      const row = (await liveActivitiesRepository(h.ctx.db.sql).find('a1', id))!;
      expect({ state: row.state, contentState: JSON.parse(row.contentState) }).toEqual({ state: 'Active', contentState: progress.contentState });
      expect((await queuedFor(h, id)).map((m) => m.kind)).toEqual(['la_start']);
    });
  });

  describe('endActivities, shared with the scheduler', () => {
    test('ends with the given reason and per-activity times, queues the end with its dismissal date, and never ends twice', async () => {
      await setup();
      const { id } = await iosActivity();
      const startedAt = h.clock.now();
      h.clock.advance(9 * HOUR);
      const repo = liveActivitiesRepository(h.ctx.db.sql);
      const options = {
        reason: 'expired' as const,
        endedAt: (a: { startedAt: number }) => a.startedAt + 8 * HOUR,
        dismissalAt: (a: { startedAt: number }) => a.startedAt + 12 * HOUR,
        now: h.clock.now(),
      };
      const row = (await repo.find('a1', id))!;
      const ended = await h.ctx.db.write((tx) => endActivities(h.ctx.outbox, tx, [row], options));
      expect(ended.map((a) => [a.id, a.state, a.endReason, a.endedAt])).toEqual([[id, 'Ended', 'expired', startedAt + 8 * HOUR]]);
      const record = await h.service('a1', 'GET', `${PATH}/${id}`);
      expect(record.body).toMatchObject({ state: 'Ended', endedAt: new Date(startedAt + 8 * HOUR).toISOString() });
      expect((await queuedFor(h, id)).at(-1)!.content).toMatchObject({ event: 'end', dismissalAt: startedAt + 12 * HOUR, timestamp: h.clock.now() });

      // The stale row (still Active in memory) is skipped: no second end message.
      expect(await h.ctx.db.write((tx) => endActivities(h.ctx.outbox, tx, [{ ...row, state: 'Active' }], options))).toEqual([]);
      expect((await queuedFor(h, id)).filter((m) => m.kind === 'la_end')).toHaveLength(1);
    });

    test("an app-defined template's end from the scheduler carries its attributes type and date fields, so APNs gets seconds since 2001", async () => {
      await setup();
      const ride = { slug: 'ride', attributesType: 'RideAttributes', contentState: { etaMinutes: { type: 'integer', required: true }, pickupAt: { type: 'date' } } };
      expect((await h.admin('POST', '/api/admin/apps/a1/live-activity-templates', ride)).status).toBe(201);
      await connect(h, 'a1', 'u1', { platform: 'android' });
      const started = await start(h, 'a1', { templateSlug: 'ride', contentState: { etaMinutes: 3, pickupAt: '2001-01-01T00:01:00Z' }, targetUsers: ['u1'] });
      const id = started.body.activities[0].id;
      const row = (await liveActivitiesRepository(h.ctx.db.sql).find('a1', id))!;
      await h.ctx.db.write((tx) => endActivities(h.ctx.outbox, tx, [row], { reason: 'quota', endedAt: h.clock.now(), dismissalAt: h.clock.now(), now: h.clock.now() }));
      const end = (await queuedFor(h, id)).at(-1)!.content;
      expect(end).toMatchObject({ event: 'end', custom: { attributesType: 'RideAttributes', dates: { contentState: ['pickupAt'] } } });
      expect((apnsRequest(end as LiveActivityContent, 'com.example').body as { aps: Record<string, unknown> }).aps['content-state']).toEqual({ etaMinutes: 3, pickupAt: 60 });
    });
  });
});
