import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { SQL } from 'bun';
import { createApp } from '../../app';
import type { AppContext } from '../../context';
import { postgresSettings } from '../../db/postgres/connection';
import { PostgresStore } from '../../db/postgres/store';
import { silentLogger } from '../../lib/logger';
import { apnsToken } from '../../test-support/apns-standin';
import { createHarness, type Harness } from '../../test-support/harness';
import { instanceBeside } from '../../test-support/instance-beside';
import { activitiesPath, connect, queuedFor, start } from '../../test-support/live-activity-fixtures';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';
import { testRows } from '../../test-support/test-sql';
import { liveActivitiesRepository } from './live-activities.repository';
import { liveActivitiesService } from './live-activities.service';
import { optimisticUpdateRepository } from './optimistic-update.repository';

/**
 * A Live Activity update on PostgreSQL (issue 49): one read and one write statement, no
 * transaction; exact all the same when instances update one activity side by side.
 */
beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const PATH = activitiesPath('a1');
const BUDGET = 2;

/** The app a1 (APNs configured, a budget of 2 priority-10 updates an hour) and u1's activity on an Android phone and an iPhone that reported its update token. */
async function activity(): Promise<{ h: Harness<AppContext>; id: string; android: string; iphone: string; appSecret: string }> {
  const h = await createHarness({ database: 'postgres' });
  cleanups.push(() => h.close());
  const { appSecret } = await h.createApp({ id: 'a1' });
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  expect((await h.admin('PUT', '/api/admin/apps/a1/apns', { bundleId: 'com.example', teamId: 'TEAM123456', keyId: 'KEY1234567', key })).status).toBe(200);
  expect((await h.admin('PATCH', '/api/admin/apps/a1', { liveActivityBudget: { priority10PerHour: BUDGET } })).status).toBe(200);
  const android = await connect(h, 'a1', 'u1', { platform: 'android' });
  h.clock.advance(1000);
  const iphone = await connect(h, 'a1', 'u1', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
  const id: string = (await start(h, 'a1', { templateSlug: 'progress-bar', attributes: { label: 'Ride' }, contentState: { progress: '0' }, targetUsers: ['u1'] })).body.activities[0].id;
  expect((await h.service('a1', 'PUT', `${PATH}/${id}/push-token`, { token: apnsToken('update'), deviceId: iphone })).status).toBe(200);
  return { h, id, android, iphone, appSecret };
}

/** `sql`, recording the text of every statement sent through it or a connection it reserves (a transaction's). */
function counting(sql: SQL, seen: string[]): SQL {
  return new Proxy(sql, {
    get(target, prop) {
      if (prop === 'unsafe') return (query: string, values?: unknown[]) => (seen.push(query.trim()), target.unsafe(query, values as never[]));
      if (prop === 'reserve') return async () => counting((await target.reserve()) as unknown as SQL, seen);
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const updates = async (h: Harness<AppContext>, id: string) => (await queuedFor(h, id)).filter((m) => m.kind === 'la_update');
const activityRow = async (h: Harness<AppContext>, id: string) =>
  (await testRows<{ lastTimestamp: number; contentState: string }>(h.ctx, 'SELECT last_timestamp AS "lastTimestamp", content_state AS "contentState" FROM activities WHERE id = ?', [id]))[0]!;
const iphoneWindow = async (h: Harness<AppContext>, id: string, iphone: string) =>
  JSON.parse((await testRows<{ sent: string }>(h.ctx, 'SELECT priority10_sent AS sent FROM activity_instances WHERE activity_id = ? AND device_id = ?', [id, iphone]))[0]!.sent) as number[];

describe('a Live Activity update on PostgreSQL', () => {
  test(
    'is two statements, a read and one write, without BEGIN or COMMIT; it queues, supersedes and spends the budget as the unit of work did',
    async () => {
      const { h, id, android, iphone } = await activity();
      const seen: string[] = [];
      const store = new PostgresStore(postgresSettings(h.ctx.config)!, counting(new SQL(postgresSettings(h.ctx.config)!.url, { max: 2 }), seen), silentLogger);
      cleanups.push(() => store.close());
      const service = liveActivitiesService({ ...h.ctx, db: store });
      const { lastTimestamp: started } = await activityRow(h, id);
      for (let i = 1; i <= 4; i++) await service.update('a1', id, { progress: String(i * 10) });
      expect(seen).toHaveLength(8);
      expect(seen.map((s) => s.split(/\s/)[0])).toEqual(['SELECT', 'WITH', 'SELECT', 'WITH', 'SELECT', 'WITH', 'SELECT', 'WITH']);

      // Budget 2: the iPhone gets the first two at 10, then 5 (a message per priority, in the order of the targets); Android always 10.
      const queued = await updates(h, id);
      expect(queued.map((m) => [m.content.contentState.progress, m.content.priority, m.content.apnsTimestamp, m.deliveries.map((d) => d.deviceId)])).toEqual([
        ['10', 10, started + 1, [android, iphone]],
        ['20', 10, started + 2, [android, iphone]],
        ['30', 10, started + 3, [android]],
        ['30', 5, started + 3, [iphone]],
        ['40', 10, started + 4, [android]],
        ['40', 5, started + 4, [iphone]],
      ]);
      // Latest wins: only the last update's deliveries are still to go (no worker runs here).
      expect(queued.map((m) => m.deliveries.map((d) => d.status))).toEqual([['superseded', 'superseded'], ['superseded', 'superseded'], ['superseded'], ['superseded'], ['pending'], ['pending']]);
      expect(await activityRow(h, id)).toEqual({ lastTimestamp: started + 4, contentState: JSON.stringify({ progress: '40' }) });
      expect(await iphoneWindow(h, id, iphone)).toEqual([h.clock.now(), h.clock.now()]);

      // An unknown activity is 404, an ended one 409: no write is sent for either.
      seen.length = 0;
      await expect(service.update('a1', 'la_unknown', { progress: '1' })).rejects.toMatchObject({ status: 404 });
      expect((await h.service('a1', 'DELETE', `${PATH}/${id}`)).status).toBe(200);
      await expect(service.update('a1', id, { progress: '50' })).rejects.toMatchObject({ status: 409 });
      expect(seen.map((s) => s.split(/\s/)[0])).toEqual(['SELECT', 'SELECT']);
    },
    60_000,
  );

  test("an app-defined template's update is two statements too (its template read with the activity), and is checked against it", async () => {
    const h = await createHarness({ database: 'postgres' });
    cleanups.push(() => h.close());
    await h.createApp({ id: 'a1' });
    const ride = { slug: 'ride', attributesType: 'RideAttributes', contentState: { etaMinutes: { type: 'integer', required: true }, pickupAt: { type: 'date' } } };
    expect((await h.admin('POST', '/api/admin/apps/a1/live-activity-templates', ride)).status).toBe(201);
    await connect(h, 'a1', 'u1', { platform: 'android' });
    const id: string = (await start(h, 'a1', { templateSlug: 'ride', contentState: { etaMinutes: 3 }, targetUsers: ['u1'] })).body.activities[0].id;
    const seen: string[] = [];
    const store = new PostgresStore(postgresSettings(h.ctx.config)!, counting(new SQL(postgresSettings(h.ctx.config)!.url, { max: 2 }), seen), silentLogger);
    cleanups.push(() => store.close());
    const service = liveActivitiesService({ ...h.ctx, db: store });
    await service.update('a1', id, { etaMinutes: 2, pickupAt: '2001-01-01T00:01:00Z' });
    expect(seen.map((s) => s.split(/\s/)[0])).toEqual(['SELECT', 'WITH']);
    expect((await updates(h, id)).map((m) => m.content)).toMatchObject([{ contentState: { etaMinutes: 2 }, custom: { attributesType: 'RideAttributes', dates: { contentState: ['pickupAt'] } } }]);
    await expect(service.update('a1', id, { etaMinutes: 'soon' })).rejects.toMatchObject({ status: 400 });
    expect(seen).toHaveLength(3);
  }, 60_000);

  test('a write from a read the activity has changed since writes nothing: another update, or a write that locked the row (a token report)', async () => {
    const { h, id } = await activity();
    const repo = optimisticUpdateRepository(h.ctx.db.sql);
    const attempt = async (read: NonNullable<Awaited<ReturnType<typeof repo.read>>>, progress: string) =>
      repo.write({
        appId: 'a1',
        activityId: id,
        lastTimestamp: read.row.lastTimestamp,
        version: read.version,
        contentState: JSON.stringify({ progress }),
        apnsTimestamp: read.row.lastTimestamp + 1,
        now: h.clock.now(),
        kind: 'la_update',
        templateSlug: 'progress-bar',
        sentBody: null,
        messages: [JSON.stringify({ progress })],
        deliveries: read.instances.map((i) => ({ deviceId: i.deviceId, tokenId: i.deviceTokenId, status: 'pending', holdKind: null, reason: null, message: 1 })),
        spends: read.instances.map((i) => ({ deviceId: i.deviceId, window: '[1]' })),
      });
    const counts = async () => (await testRows<{ n: number }>(h.ctx, 'SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM deliveries) AS n'))[0]!.n;

    const stale = (await repo.read('a1', id))!;
    expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '1' } })).status).toBe(200);
    const before = { row: await activityRow(h, id), n: await counts() };
    expect(await attempt(stale, 'lost')).toEqual({ written: false, superseded: [] });
    expect({ row: await activityRow(h, id), n: await counts() }).toEqual(before);

    // A unit of work that locks the row for what it changes beside it (a token report, an instance report) makes a new row version.
    const read = (await repo.read('a1', id))!;
    await h.ctx.db.write((tx) => liveActivitiesRepository(tx).findForWrite('a1', id));
    expect((await attempt(read, 'lost')).written).toBe(false);
    expect({ row: await activityRow(h, id), n: await counts() }).toEqual(before);
    expect(await testRows(h.ctx, `SELECT 1 FROM activity_instances WHERE activity_id = ? AND priority10_sent = '[1]'`, [id])).toEqual([]);

    const fresh = (await repo.read('a1', id))!;
    const won = await attempt(fresh, 'won');
    expect(won.written).toBe(true);
    expect(won.superseded).toHaveLength(2);
    expect((await activityRow(h, id)).contentState).toBe(JSON.stringify({ progress: 'won' }));
  }, 60_000);

  test(
    'two instances updating one activity side by side: every update queued once, APNs timestamps strictly increasing, the budget spent exactly',
    async () => {
      const { h, id, iphone, appSecret } = await activity();
      const b = await instanceBeside(h, cleanups);
      const { lastTimestamp: started } = await activityRow(h, id);
      const UPDATES = 16;
      const instances = [h.app, createApp(b)];
      const results = await Promise.all(
        Array.from({ length: UPDATES }, (_, i) =>
          instances[i % 2]!.handle(
            new Request(`http://islet.test${PATH}/${id}`, {
              method: 'PATCH',
              headers: { 'x-service-key': appSecret, 'content-type': 'application/json' },
              body: JSON.stringify({ contentState: { progress: String(i) } }),
            }),
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(UPDATES).fill(200));
      const queued = await updates(h, id);
      // One update: one timestamp (its messages per priority share it). Each once, in the order queued.
      const stamps = [...new Set(queued.map((m) => m.content.apnsTimestamp as number))];
      expect(stamps).toEqual(Array.from({ length: UPDATES }, (_, i) => started + 1 + i));
      expect(new Set(queued.map((m) => m.content.contentState.progress)).size).toBe(UPDATES);
      // The last queued is the activity's state.
      const last = queued.at(-1)!;
      expect(await activityRow(h, id)).toEqual({ lastTimestamp: started + UPDATES, contentState: JSON.stringify(last.content.contentState) });
      // Exactly the budget went to the iPhone at 10, the rest at 5.
      const toIphone = queued.filter((m) => m.deliveries.some((d) => d.deviceId === iphone)).map((m) => m.content.priority);
      expect(toIphone).toEqual([...Array(BUDGET).fill(10), ...Array(UPDATES - BUDGET).fill(5)]);
      expect(await iphoneWindow(h, id, iphone)).toHaveLength(BUDGET);
    },
    60_000,
  );
});
