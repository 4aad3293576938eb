import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { scheduledSendsConsumer } from '../schedule/scheduled-sends.consumer';
import { resumeThrottledSends } from './throttle';

// A fresh database per test and a dozen requests: on PostgreSQL on a busy 2-core machine that
// passed 5 s (a bound on the machine, not on Islet: the rate is measured in scripts/bench).
setDefaultTimeout(20_000);

forEachDatabase('throttled sends', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  // The harness clock: 2026-01-15T12:00:00Z.
  const NOW = Date.parse('2026-01-15T12:00:00Z');
  const SEND = '/api/apps/a1/notifications/send';

  async function setup(devices: { label: string; timeZone?: string }[]) {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [{ slug: 'promo', title: 'Sale', body: 'Now on' }] });
    for (const d of devices) {
      const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: d.label, platform: 'ios', token: apnsToken(d.label), ...(d.timeZone && { timeZone: d.timeZone }) });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    }
  }
  const send = (body: Record<string, unknown>) => h.service('a1', 'POST', SEND, { templateSlug: 'promo', ...body });
  const dueTimes = async () =>
    (await testRows<{ due: number | string }>(h.ctx, "SELECT next_attempt_at AS due FROM deliveries WHERE status = 'pending' ORDER BY id")).map((r) => Number(r.due) - NOW);
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `phone-${i}` }));

  test('ten deliveries at 60 a minute are due a second apart from the send, in the order written; the status counts them queued', async () => {
    await setup(many(10));
    const res = await send({ throttlePerMinute: 60 });
    expect(res.body).toEqual({ messageCount: 10, messageId: expect.stringMatching(/^msg_/) });
    expect(await dueTimes()).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]);
    const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${res.body.messageId}`);
    expect(status.body.deliveries).toMatchObject({ total: 10, queued: 10 });
  });

  test('an uneven rate rounds each due time down, never drifting: 7 a minute over 8 deliveries', async () => {
    await setup(many(8));
    await send({ throttlePerMinute: 7 });
    expect(await dueTimes()).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => Math.floor((i * 60_000) / 7)));
  });

  test('a localized send is one send: its languages share one spread, not one each', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const promo = { slug: 'promo', title: 'Sale', body: 'Now on', localizations: { de: { title: 'Ausverkauf' } } };
    await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [promo] });
    for (let i = 0; i < 6; i++) {
      const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: `u${i}`, platform: 'ios', token: apnsToken(`l10n-${i}`), locale: i % 2 ? 'de-AT' : 'en' });
      expect(res.status).toBe(200);
    }
    expect((await send({ throttlePerMinute: 60 })).body.messageCount).toBe(6);
    expect(await testRows(h.ctx, 'SELECT message_id FROM notification_message_variants')).toHaveLength(1);
    expect((await dueTimes()).sort((a, b) => a - b)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
  });

  test('a send without throttlePerMinute is due at once, all of it', async () => {
    await setup(many(3));
    await send({});
    expect(await dueTimes()).toEqual([0, 0, 0]);
  });

  test('a cancel drops what the throttle still holds back', async () => {
    await setup(many(5));
    const res = await send({ throttlePerMinute: 1 });
    const cancel = await h.service('a1', 'DELETE', `/api/apps/a1/notifications/${res.body.messageId}`);
    expect(cancel.body).toEqual({ messageId: res.body.messageId, cancelled: 5 });
    const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${res.body.messageId}`);
    expect(status.body.deliveries).toMatchObject({ total: 5, queued: 0, dropped: 5 });
  });

  test('a sendAtLocal spreads from when each part goes; a part that goes while the earlier one is still spreading starts after it', async () => {
    await setup([{ label: 'v1', timeZone: 'Europe/Vienna' }, { label: 'v2', timeZone: 'Europe/Vienna' }, { label: 'l1', timeZone: 'Europe/London' }]);
    const res = await send({ sendAtLocal: '2026-01-16T09:00', throttlePerMinute: 1 });
    expect(res.body.messageCount).toBe(3);
    expect(await dueTimes()).toEqual([]);
    // The server was down at 08:00Z (Vienna's 09:00) and comes back at 09:00Z (London's): both parts go in one round.
    h.clock.set(Date.parse('2026-01-16T09:00:00Z'));
    await scheduledSendsConsumer(h.ctx).drain();
    const nine = Date.parse('2026-01-16T09:00:00Z') - NOW;
    expect(await dueTimes()).toEqual([nine, nine + 60_000, nine + 120_000]);
  });

  test('after a stop, what fell behind goes on at the rate from the restart, in its order; once on time, a second restart changes nothing', async () => {
    await setup(many(5));
    await send({ throttlePerMinute: 60 });
    await send({ throttlePerMinute: 6 });
    // Nothing ran for 2.5 s: three deliveries of the first send are overdue, none of the second's but its first.
    h.clock.advance(2500);
    expect(await resumeThrottledSends(h.ctx)).toBe(10);
    const first = [0, 1000, 2000, 3000, 4000].map((t) => t + 2500);
    // The second's first delivery was due at 0: it and the rest move on by 2.5 s too (10 s apart, the first now).
    const second = [0, 10_000, 20_000, 30_000, 40_000].map((t) => t + 2500);
    expect((await dueTimes()).sort((a, b) => a - b)).toEqual([...first, ...second].sort((a, b) => a - b));
    // On time now: a second restart changes nothing.
    expect(await resumeThrottledSends(h.ctx)).toBe(0);
  });

  test('throttlePerMinute out of 1 to 1,000,000 or not an integer is a 400 naming it; nothing is queued', async () => {
    await setup(many(1));
    for (const throttlePerMinute of [0, 1_000_001, 2.5, 'fast']) {
      const res = await send({ throttlePerMinute });
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain('throttlePerMinute');
    }
    expect(await testRows(h.ctx, 'SELECT id FROM deliveries')).toEqual([]);
    expect((await send({ throttlePerMinute: 1_000_000 })).body.messageCount).toBe(1);
  });
});
