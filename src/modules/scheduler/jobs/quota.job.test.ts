import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../../lib/clock';
import { activitiesPath, connect, queuedFor, start } from '../../../test-support/live-activity-fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';
import { createScheduler } from '../scheduler.jobs';
import { enforceQuotas } from './quota.job';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';

forEachDatabase('quota', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const MIN = 60_000;
  const HOUR = 60 * MIN;
  const PLANS = '[plans.small]\nlive_activities = true\nminutes = 60\n[plans.flex]\nlive_activities = true\nminutes = 60\noverage = true\n[plans.none]\nlive_activities = true\nminutes = 0\n';

  async function setup(plan: string, clockAt = '2026-06-10T10:00:00Z') {
    h = await createHarness({ database, clock: new FakeClock(Date.parse(clockAt)), toml: PLANS });
    await h.createApp({ id: 'a1', plan });
    await connect(h, 'a1', 'u1');
    await connect(h, 'a1', 'u2');
  }

  const activity = async (id: string) => (await h.admin('GET', `/api/admin/apps/a1/live-activities/${id}`)).body;

  describe('minutes quota', () => {
    test('two concurrent activities use 60 minutes in 30: both end then, with reason quota, and starts answer 429', async () => {
      await setup('small');
      const started = await start(h, 'a1');
      const startedAt = h.clock.now();
      const [a, b] = started.body.activities.map((x: { id: string }) => x.id);
      h.clock.advance(29 * MIN);
      expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(0);
      h.clock.advance(2 * MIN);
      expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(2);
      for (const id of [a, b]) {
        const detail = await activity(id);
        expect(detail).toMatchObject({ state: 'Ended', endReason: 'quota', endedAt: new Date(startedAt + 30 * MIN).toISOString() });
        expect((await queuedFor(h, id)).map((m) => m.kind)).toEqual(['la_start', 'la_end']);
        // Removed from the device at once, not left to iOS's default (up to 4 hours).
        expect((await queuedFor(h, id))[1]!.content.dismissalAt).toBe(h.clock.now());
      }
      const usage = (await h.admin('GET', '/api/admin/apps/a1/usage')).body;
      expect(usage).toMatchObject({ minutesUsed: 60, quota: 60, overageMinutes: 0, activeActivities: 0 });
      const refused = await h.service('a1', 'POST', activitiesPath('a1'), { templateSlug: 'metric-live', attributes: { label: 'x' }, contentState: { value: '1' } });
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toBe('live activity minutes limit exceeded for this billing period');
    });

    test('plans with overage never end activities and report the minutes over the quota', async () => {
      await setup('flex');
      await start(h, 'a1');
      h.clock.advance(45 * MIN);
      expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(0);
      const usage = (await h.admin('GET', '/api/admin/apps/a1/usage')).body;
      expect(usage).toMatchObject({ minutesUsed: 90, quota: 60, overage: true, overageMinutes: 30, activeActivities: 2 });
      expect((await start(h, 'a1')).status).toBe(200);
    });

    test('minutes = 0 allows none: starts answer 429', async () => {
      await setup('none');
      const res = await h.service('a1', 'POST', activitiesPath('a1'), { templateSlug: 'metric-live', attributes: { label: 'x' }, contentState: { value: '1' } });
      expect(res.status).toBe(429);
    });

    test('a new billing period gives the minutes back', async () => {
      await setup('small', '2026-06-30T23:00:00Z');
      await start(h, 'a1'); // 2 activities × 60 min reach the quota at 23:30
      h.clock.set(Date.parse('2026-07-01T00:10:00Z'));
      expect(await enforceQuotas(h.ctx, h.clock.now())).toBe(2);
      const june = (await h.admin('GET', '/api/admin/apps/a1/usage')).body;
      expect(june).toMatchObject({ periodStart: '2026-07-01T00:00:00.000Z', minutesUsed: 0 });
      expect((await start(h, 'a1')).status).toBe(200);
    });

    test('metering splits an activity across the period boundary', async () => {
      await setup('flex', '2026-06-30T23:30:00Z');
      await start(h, 'a1', { templateSlug: 'metric-live', attributes: { label: 'x' }, contentState: { value: '1' }, targetUsers: ['u1'] });
      h.clock.set(Date.parse('2026-07-01T00:20:00Z'));
      const usage = (await h.admin('GET', '/api/admin/apps/a1/usage')).body;
      expect(usage.minutesUsed).toBe(20);
      expect(usage.daily[0]).toEqual({ date: '2026-07-01', minutes: 20 });
    });

    test('after downtime the first run ends activities at the moment the quota was reached', async () => {
      await setup('small');
      const started = await start(h, 'a1');
      const startedAt = h.clock.now();
      h.clock.advance(5 * HOUR); // the server was down; nothing ran meanwhile
      const scheduler = createScheduler(h.ctx);
      await scheduler.tick();
      await scheduler.stop();
      for (const { id } of started.body.activities) {
        expect(await activity(id)).toMatchObject({ state: 'Ended', endReason: 'quota', endedAt: new Date(startedAt + 30 * MIN).toISOString() });
      }
      expect((await h.admin('GET', '/api/admin/apps/a1/usage')).body.minutesUsed).toBe(60);
    });
  });
});
