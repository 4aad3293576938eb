import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../lib/clock';
import { createHarness, type Harness } from '../../test-support/harness';
import { activitiesPath, connect, progress, start } from '../../test-support/live-activity-fixtures';
import { enforceQuotas } from '../scheduler/jobs/quota.job';
import { usedMinutes } from './live-activities.usage';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('activity-usage', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const MINUTE = 60_000;
  const PLANS = `
[plans.small]
live_activities = true
minutes = 10
[plans.none]
live_activities = true
minutes = 0
[plans.unlimited]
live_activities = true
[plans.elastic]
live_activities = true
minutes = 1
overage = true
`;
  const LIMIT = { title: 'Too Many Requests', status: 429, detail: 'live activity minutes limit exceeded for this billing period' };

  async function setup(plan: string, clock = new FakeClock()) {
    h = await createHarness({ database, toml: PLANS, clock });
    await h.createApp({ id: 'a1', plan });
    await connect(h, 'a1', 'u1');
    await connect(h, 'a1', 'u2');
  }

  const tryStart = () => h.service('a1', 'POST', activitiesPath('a1'), { ...progress, targetUsers: ['u1'] });

  describe('the minutes quota of the billing period', () => {
    test('a start is refused with 429 once the active time of all activities reaches the plan minutes', async () => {
      await setup('small');
      const first = (await start(h, 'a1', { ...progress, targetUsers: ['u1'] })).body.activities[0].id;
      h.clock.advance(4 * MINUTE);
      await start(h, 'a1', { ...progress, targetUsers: ['u2'] });
      h.clock.advance(2 * MINUTE);
      await h.service('a1', 'DELETE', `${activitiesPath('a1')}/${first}`); // 6 minutes, then stops counting
      h.clock.advance(MINUTE);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(6 + 3);
      expect((await tryStart()).status).toBe(200);

      // Two activities now run: 30 s later usage is 6 + 3.5 + 0.5 = 10, and 1 ms before that it is under.
      h.clock.advance(MINUTE / 2 - 1);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBeLessThan(10);
      h.clock.advance(1);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(10);
      const refused = await tryStart();
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(LIMIT);
    });

    test('minutes = 0 allows no start at all', async () => {
      await setup('none');
      expect((await tryStart()).body).toEqual(LIMIT);
    });

    test('a plan without minutes is unlimited, and one with overage is never refused', async () => {
      for (const plan of ['unlimited', 'elastic']) {
        await setup(plan);
        await start(h, 'a1');
        h.clock.advance(10 * 24 * 60 * MINUTE);
        expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(2 * 10 * 24 * 60);
        expect((await tryStart()).status).toBe(200);
        h.close();
      }
    });

    test('a plan without live activities is 403 before any quota question', async () => {
      h = await createHarness({ database, toml: PLANS });
      await h.createApp({ id: 'a1', plan: 'free' });
      expect((await tryStart()).status).toBe(403);
    });

    test('only time inside the calendar month (UTC) counts: a new month starts from zero', async () => {
      await setup('small', new FakeClock(Date.parse('2026-01-31T23:55:00Z')));
      await start(h, 'a1', { ...progress, targetUsers: ['u1'] });
      h.clock.advance(4 * MINUTE);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(4);
      h.clock.set(Date.parse('2026-02-01T00:03:00Z'));
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(3);
      h.clock.set(Date.parse('2026-02-01T00:09:00Z'));
      expect((await tryStart()).status).toBe(200);
      h.clock.advance(30_000); // 9.5 + 0.5 = 10
      expect((await tryStart()).body).toEqual(LIMIT);
      // January is closed: its usage stays what it was.
      expect(await usedMinutes(h.ctx.db.sql, 'a1', Date.parse('2026-01-31T23:59:59.999Z'))).toBeCloseTo(5, 3);
    });

    test('an activity no phone can show (an iPhone without a push-to-start token) uses no minutes; the admin detail says why it has no instance', async () => {
      await setup('small');
      await connect(h, 'a1', 'no-start', { platform: 'ios' });
      const unshown = (await start(h, 'a1', { ...progress, targetUsers: ['no-start'] })).body.activities[0];
      expect(unshown.state).toBe('Active');
      h.clock.advance(20 * MINUTE);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(0);
      const usage = (await h.admin('GET', '/api/admin/apps/a1/usage')).body;
      expect([usage.minutesUsed, usage.daily.map((d: { minutes: number }) => d.minutes).filter((m: number) => m > 0)]).toEqual([0, []]);
      // Not over the 10 minutes: the quota ends nothing and starts are allowed.
      expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(0);
      const detail = (await h.admin('GET', `/api/admin/apps/a1/live-activities/${unshown.id}`)).body;
      expect([detail.state, detail.instances, detail.noInstanceReason]).toEqual(['Active', [], 'device has no push-to-start token']);
      // An activity a phone shows is billed as before, and its detail has no such reason.
      const shown = (await start(h, 'a1', { ...progress, targetUsers: ['u1'] })).body.activities[0].id;
      h.clock.advance(4 * MINUTE);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(4);
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${shown}`)).body.noInstanceReason).toBeNull();
      h.clock.advance(7 * MINUTE);
      expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(2);
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${shown}`)).body).toMatchObject({ endReason: 'quota', endedAt: new Date(h.clock.now() - MINUTE).toISOString() });
    });

    test('activities of other apps do not count', async () => {
      await setup('small');
      await h.createApp({ id: 'a2', plan: 'small' });
      await connect(h, 'a2', 'u1');
      await start(h, 'a2');
      h.clock.advance(60 * MINUTE);
      expect(await usedMinutes(h.ctx.db.sql, 'a2', h.clock.now())).toBe(60);
      expect(await usedMinutes(h.ctx.db.sql, 'a1', h.clock.now())).toBe(0);
      expect((await tryStart()).status).toBe(200);
    });
  });
});
