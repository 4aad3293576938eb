import { afterEach, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../../lib/clock';
import { connect, queuedFor, start } from '../../live-activities/live-activities.fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';
import { expireIosActivities } from './ios-expiry.job';
import { enforceQuotas } from './quota.job';
import { apnsToken } from '../../../test-support/apns-standin';

let h: Harness;
afterEach(() => h?.close());

const HOUR = 60 * 60_000;

describe('iOS expiry', () => {
  test('an iOS activity ends 8 hours after its start, dismissed at 12 hours; Android ones run on', async () => {
    h = createHarness({ clock: new FakeClock(Date.parse('2026-06-10T08:00:00Z')), toml: '[plans.big]\nlive_activities = true\n' });
    await h.createApp({ id: 'a1', plan: 'big' });
    await connect(h, 'a1', 'iphone-user', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
    await connect(h, 'a1', 'android-user', { platform: 'android' });
    const startedAt = h.clock.now();
    const started = await start(h, 'a1');
    const ios = started.body.activities.find((a: { platform: string }) => a.platform === 'ios').id;
    const android = started.body.activities.find((a: { platform: string }) => a.platform === 'android').id;

    h.clock.advance(8 * HOUR - 1);
    expect(expireIosActivities(h.ctx, h.clock.now())).toBe(0);
    h.clock.advance(3 * HOUR); // a late run still ends it at exactly 8 hours
    expect(expireIosActivities(h.ctx, h.clock.now())).toBe(1);

    const detail = (await h.admin('GET', `/api/admin/apps/a1/live-activities/${ios}`)).body;
    expect(detail).toMatchObject({ state: 'Ended', endReason: 'expired', endedAt: new Date(startedAt + 8 * HOUR).toISOString() });
    const end = queuedFor(h, ios).find((m) => m.kind === 'la_end')!;
    expect(end.content.dismissalAt).toBe(startedAt + 12 * HOUR);
    expect((await h.admin('GET', `/api/admin/apps/a1/live-activities/${android}`)).body.state).toBe('Active');
  });

  test('minutes stop counting at 8 hours, even when the check runs late', async () => {
    h = createHarness({ clock: new FakeClock(Date.parse('2026-06-10T08:00:00Z')), toml: '[plans.big]\nlive_activities = true\nminutes = 100000\n' });
    await h.createApp({ id: 'a1', plan: 'big' });
    await connect(h, 'a1', 'iphone-user', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
    await start(h, 'a1');
    h.clock.advance(11 * HOUR);
    enforceQuotas(h.ctx, h.clock.now());
    expect((await h.admin('GET', '/api/admin/apps/a1/usage')).body.minutesUsed).toBe(8 * 60);
  });
});
