import { afterEach, describe, expect, test } from 'bun:test';
import { apnsToken } from '../../../test-support/apns-standin';
import { FakeClock } from '../../../lib/clock';
import { connect, queuedFor, start } from '../../../test-support/live-activity-fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';
import { expireIosActivities } from './ios-expiry.job';
import { enforceQuotas } from './quota.job';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';

forEachDatabase('ios-expiry', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const HOUR = 60 * 60_000;

  describe('iOS expiry', () => {
    test('an iOS activity ends 8 hours after its start, dismissed at 12 hours; Android ones run on', async () => {
      h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-06-10T08:00:00Z')), toml: '[plans.big]\nlive_activities = true\n' });
      await h.createApp({ id: 'a1', plan: 'big' });
      await connect(h, 'a1', 'iphone-user', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
      await connect(h, 'a1', 'android-user', { platform: 'android' });
      const startedAt = h.clock.now();
      const started = await start(h, 'a1');
      const ios = started.body.activities.find((a: { platform: string }) => a.platform === 'ios').id;
      const android = started.body.activities.find((a: { platform: string }) => a.platform === 'android').id;

      h.clock.advance(8 * HOUR - 1);
      expect(await expireIosActivities(h.ctx, h.clock.now())).toBe(0);
      h.clock.advance(3 * HOUR); // a late run still ends it at exactly 8 hours
      expect(await expireIosActivities(h.ctx, h.clock.now())).toBe(1);

      const detail = (await h.admin('GET', `/api/admin/apps/a1/live-activities/${ios}`)).body;
      expect(detail).toMatchObject({ state: 'Ended', endReason: 'expired', endedAt: new Date(startedAt + 8 * HOUR).toISOString() });
      const end = (await queuedFor(h, ios)).find((m) => m.kind === 'la_end')!;
      expect(end.content.dismissalAt).toBe(startedAt + 12 * HOUR);
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${android}`)).body.state).toBe('Active');
    });

    test('the 8-hour rule is per instance: a user with an iPhone and an Android phone keeps the activity on Android; it ends when no instance is live', async () => {
      h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-06-10T08:00:00Z')), toml: '[plans.big]\nlive_activities = true\n' });
      await h.createApp({ id: 'a1', plan: 'big' });
      const iphone = await connect(h, 'a1', 'mixed', { platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
      h.clock.advance(1000);
      const pixel = await connect(h, 'a1', 'mixed', { platform: 'android' });
      // The newest device is the iPhone: the old rule (by the newest device's platform) would have ended it all at 8 hours.
      h.clock.advance(1000);
      await connect(h, 'a1', 'mixed', { platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
      const startedAt = h.clock.now();
      const id = (await start(h, 'a1', { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' } })).body.activities[0].id;
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${id}`)).body.platform).toBe('ios');

      h.clock.advance(9 * HOUR);
      expect(await expireIosActivities(h.ctx, h.clock.now())).toBe(0);
      const detail = (await h.admin('GET', `/api/admin/apps/a1/live-activities/${id}`)).body;
      expect(detail.state).toBe('Active');
      const states = Object.fromEntries(detail.instances.map((i: { deviceId: string; platform: string; state: string; endedAt?: string }) => [i.platform + (i.deviceId === iphone ? '-1' : ''), [i.state, i.endedAt]]));
      const endedAt = new Date(startedAt + 8 * HOUR).toISOString();
      expect(states).toEqual({ 'ios-1': ['ended', endedAt], ios: ['ended', endedAt], android: ['live', undefined] });
      // The end went to the two iPhones only, dismissed at 12 hours.
      const end = (await queuedFor(h, id)).find((m) => m.kind === 'la_end')!;
      expect(end.content.dismissalAt).toBe(startedAt + 12 * HOUR);
      expect(end.deliveries.map((d) => d.deviceId)).not.toContain(pixel);
      expect(end.deliveries).toHaveLength(2);
      // Updates now go to the Android phone alone.
      expect((await h.service('a1', 'PATCH', `/api/apps/a1/live-activities/${id}`, { contentState: { progress: '50' } })).status).toBe(200);
      expect((await queuedFor(h, id)).at(-1)!.deliveries.map((d) => d.deviceId)).toEqual([pixel]);

      // An activity of iPhones only ends as a whole, as of 8 hours.
      const iosOnly = await connect(h, 'a1', 'ios-only', { platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
      const soloStart = h.clock.now();
      const solo = (await start(h, 'a1', { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '1' }, targetUsers: ['ios-only'] })).body.activities[0].id;
      h.clock.advance(8 * HOUR);
      expect(await expireIosActivities(h.ctx, h.clock.now())).toBe(1);
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${solo}`)).body).toMatchObject({
        state: 'Ended',
        endReason: 'expired',
        endedAt: new Date(soloStart + 8 * HOUR).toISOString(),
      });
      // One end push, not two (the instance's end, then no second for the activity).
      expect((await queuedFor(h, solo)).filter((m) => m.kind === 'la_end').flatMap((m) => m.deliveries.map((d) => d.deviceId))).toEqual([iosOnly]);
      expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${id}`)).body.state).toBe('Active');
    });

    test('minutes stop counting at 8 hours, even when the check runs late', async () => {
      h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-06-10T08:00:00Z')), toml: '[plans.big]\nlive_activities = true\nminutes = 100000\n' });
      await h.createApp({ id: 'a1', plan: 'big' });
      await connect(h, 'a1', 'iphone-user', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
      await start(h, 'a1');
      h.clock.advance(11 * HOUR);
      await enforceQuotas(h.ctx, h.clock.now());
      expect((await h.admin('GET', '/api/admin/apps/a1/usage')).body.minutesUsed).toBe(8 * 60);
    });
  });
});
