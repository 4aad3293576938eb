import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../app';
import { bootstrap } from '../../bootstrap';
import type { AppContext } from '../../context';
import { silentLogger } from '../../lib/logger';
import { createHarness, type Harness } from '../../test-support/harness';
import { activitiesPath, connect, queuedFor, start } from '../../test-support/live-activity-fixtures';
import { apnsToken } from '../../test-support/apns-answer';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';

beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);

let h: Harness<AppContext> | undefined;
let second: AppContext | undefined;
afterEach(async () => {
  await second?.db.close();
  await second?.coordination.close();
  await h?.close();
  second = h = undefined;
});

describe('live activity updates through two instances on one PostgreSQL', () => {
  test(
    'concurrent updates of one activity through both get strictly increasing APNs timestamps, none twice',
    async () => {
      h = await createHarness({ database: 'postgres' });
      // A second instance: its own store and application on the same database (and master key).
      second = (await bootstrap(h.ctx.config, { clock: h.clock, logger: silentLogger })).ctx;
      const other = createApp(second);
      const { appSecret } = await h.createApp({ id: 'a1' });
      await connect(h, 'a1', 'u1');
      const id: string = (await start(h, 'a1')).body.activities[0].id;
      const update = (via: 'first' | 'second', n: number) => {
        const request = new Request(`http://islet.test${activitiesPath('a1')}/${id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', 'x-service-key': appSecret },
          body: JSON.stringify({ contentState: { progress: String(n) } }),
        });
        return (via === 'first' ? h!.app : other).handle(request).then((r) => r.status);
      };
      // The clock stands still: every timestamp after the first comes from the one before it.
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, n) => update(n % 2 ? 'second' : 'first', n)));
      expect(statuses).toEqual(Array(40).fill(200));
      const updates = (await queuedFor(h, id)).filter((m) => m.kind === 'la_update').map((m) => m.content.apnsTimestamp as number);
      expect(updates.length).toBe(40);
      // In the order they were queued (message ids), each is one more than the one before.
      const first = Math.floor(h.clock.now() / 1000);
      expect(updates).toEqual(Array.from({ length: 40 }, (_, i) => first + 1 + i));
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'priority "auto": concurrent updates of one iPhone instance through both instances spend a budget of 2 exactly: 2 at 10, the rest at 5',
    async () => {
      h = await createHarness({ database: 'postgres' });
      second = (await bootstrap(h.ctx.config, { clock: h.clock, logger: silentLogger })).ctx;
      const other = createApp(second);
      const { appSecret } = await h.createApp({ id: 'a1' });
      expect((await h.admin('PATCH', '/api/admin/apps/a1', { liveActivityBudget: { priority10PerHour: 2 } })).status).toBe(200);
      await connect(h, 'a1', 'u1', { platform: 'ios', pushToStartToken: apnsToken() });
      const id: string = (await start(h, 'a1')).body.activities[0].id;
      const update = (via: 'first' | 'second', n: number) =>
        (via === 'first' ? h!.app : other)
          .handle(
            new Request(`http://islet.test${activitiesPath('a1')}/${id}`, {
              method: 'PATCH',
              headers: { 'content-type': 'application/json', 'x-service-key': appSecret },
              body: JSON.stringify({ contentState: { progress: String(n) } }),
            }),
          )
          .then((r) => r.status);
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, n) => update(n % 2 ? 'second' : 'first', n)));
      expect(statuses).toEqual(Array(12).fill(200));
      const priorities = (await queuedFor(h, id)).filter((m) => m.kind === 'la_update').map((m) => m.content.priority);
      expect(priorities.length).toBe(12);
      // The first two queued (in message order) took the budget; whoever came next waited for the row lock and saw it spent.
      expect(priorities).toEqual([10, 10, ...Array(10).fill(5)]);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
