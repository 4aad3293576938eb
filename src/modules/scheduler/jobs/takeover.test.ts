import { afterEach, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { FakeClock } from '../../../lib/clock';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { connect, queuedFor, start } from '../../../test-support/live-activity-fixtures';
import { testRows } from '../../../test-support/test-sql';
import { expireIosActivities } from './ios-expiry.job';
import { webhookEventsRepository } from '../../webhooks/webhook-events.repository';

/**
 * While a new scheduler leader takes over, the old one's run may still be going: the same job runs
 * twice at once, each in its own writes. Its effects must happen once.
 */
forEachDatabase('scheduler jobs run twice at once (a leader takeover)', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());
  const HOUR = 60 * 60_000;

  describe('takeover', () => {
    test('two iOS expiry runs end an instance past 8 hours once: one end push, the activity stays Active on Android', async () => {
      h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-06-10T08:00:00Z')), toml: '[plans.big]\nlive_activities = true\n' });
      await h.createApp({ id: 'a1', plan: 'big' });
      const iphone = await connect(h, 'a1', 'mixed', { platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
      await connect(h, 'a1', 'mixed', { platform: 'android' });
      const id = (await start(h, 'a1', { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' } })).body.activities[0].id;
      h.clock.advance(9 * HOUR);
      await Promise.all([expireIosActivities(h.ctx, h.clock.now()), expireIosActivities(h.ctx, h.clock.now())]);
      const ends = (await queuedFor(h, id)).filter((m) => m.kind === 'la_end');
      expect(ends.flatMap((m) => m.deliveries.map((d) => d.deviceId))).toEqual([iphone]);
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${id}`)).body.state).toBe('Active');
    }, 30_000);

    test('two ends of one broadcast at once (two quota runs, or the API through two instances): one ends it, the other answers 409, one end queued', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const made = await h.service('a1', 'POST', '/api/apps/a1/broadcasts', { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0 - 0' } });
      expect(made.status).toBe(201);
      const answers = await Promise.all([0, 1].map(() => h.service('a1', 'DELETE', `/api/apps/a1/broadcasts/${made.body.id}`)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const n = (await testRows<{ n: number }>(h.ctx, "SELECT count(*) AS n FROM broadcast_ops WHERE broadcast_id = ? AND kind = 'end'", [made.body.id]))[0]?.n;
      expect(n).toBe(1);
    }, 30_000);

    test('two quota-event checks at once emit the event once', async () => {
      h = await createHarness({ database });
      const { id } = await h.createApp();
      let asked = 0;
      const checkThenEmit = () =>
        h.ctx.db.write(async (tx) => {
          const had = await webhookEventsRepository(tx).hadEventSince(id, 'quota.warning', 0);
          asked++;
          // Gives the other write up to a second to ask too: without the guarantee both ask before either emits.
          for (let i = 0; i < 20 && asked < 2 && database === 'postgres'; i++) await Bun.sleep(50);
          if (!had) await webhookEventsRepository(tx).writeEvent(id, 'quota.warning', {}, [], h.clock.now());
        });
      await Promise.all([checkThenEmit(), checkThenEmit()]);
      const n = (await testRows<{ n: number }>(h.ctx, "SELECT count(*) AS n FROM webhook_events WHERE app_id = ? AND type = 'quota.warning'", [id]))[0]?.n;
      expect(n).toBe(1);
    }, 30_000);
  });
});
