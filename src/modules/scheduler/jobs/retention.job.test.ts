import { afterEach, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { FakeClock } from '../../../lib/clock';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { retentionJob } from './retention.job';

const DAY = 24 * 60 * 60 * 1000;

function insertActivity(h: Harness<AppContext>, id: string, startedAt: number, endedAt: number | null) {
  return testRows(
    h.ctx,
    `INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, started_at, ended_at, end_reason)
     VALUES (?, 'a1', 'u1', 'metric-live', 'android', ?, '{}', '{}', ?, ?, ?)`,
    [id, endedAt === null ? 'Active' : 'Ended', startedAt, endedAt, endedAt === null ? null : 'api'],
  );
}

const activityIds = async (h: Harness<AppContext>) => (await testRows<{ id: string }>(h.ctx, 'SELECT id FROM activities ORDER BY id')).map((r) => r.id);

forEachDatabase('retention', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  test('prunes old finished deliveries and old ended activities, keeps the rest', async () => {
    h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-06-20T00:00:00Z')), toml: '[retention]\nactivities_days = 30\ndeliveries_days = 7\n' });
    await h.createApp({ id: 'a1' });
    const now = h.clock.now();
    const device = (await h.admin('POST', '/api/admin/apps/a1/devices', { endUserId: 'u1', platform: 'android', token: 't' })).body.device.id;
    await insertActivity(h, 'la_old', now - 60 * DAY, now - 59 * DAY);
    await insertActivity(h, 'la_recent', now - 10 * DAY, now - 9 * DAY);
    await insertActivity(h, 'la_active', now - 90 * DAY, null);
    const content = { type: 'notification' as const, templateSlug: 's', releaseVersion: 1, title: 't', body: 'b' };
    const old = await h.ctx.db.write((tx) => h.ctx.outbox.enqueue(tx, { appId: 'a1', content, targets: [{ deviceId: device }, { deviceId: device }, { deviceId: device }], now: now - 8 * DAY }));
    const fresh = await h.ctx.db.write((tx) => h.ctx.outbox.enqueue(tx, { appId: 'a1', content, targets: [{ deviceId: device }], now: now - 1 * DAY }));
    // One old delivery finished, one superseded, one still pending; the fresh one finished.
    await testRows(h.ctx, `UPDATE deliveries SET status = 'delivered' WHERE message_id = ? AND id = (SELECT min(id) FROM deliveries WHERE message_id = ?)`, [old.messageId, old.messageId]);
    await testRows(h.ctx, `UPDATE deliveries SET status = 'superseded' WHERE message_id = ? AND id = (SELECT max(id) FROM deliveries WHERE message_id = ?)`, [old.messageId, old.messageId]);
    await testRows(h.ctx, `UPDATE deliveries SET status = 'delivered' WHERE message_id = ?`, [fresh.messageId]);

    await retentionJob(h.ctx).run(now);

    expect(await activityIds(h)).toEqual(['la_active', 'la_recent']);
    const left = await testRows<{ status: string; message_id: number }>(h.ctx, 'SELECT status, message_id FROM deliveries ORDER BY id');
    expect(left).toEqual([
      { status: 'pending', message_id: old.messageId },
      { status: 'delivered', message_id: fresh.messageId },
    ]);
  });

  test('never prunes an activity that ended in the current billing period', async () => {
    h = await createHarness({ database, clock: new FakeClock(Date.parse('2026-06-20T00:00:00Z')), toml: '[retention]\nactivities_days = 1\n' });
    await h.createApp({ id: 'a1' });
    const now = h.clock.now();
    await insertActivity(h, 'la_this_month', Date.parse('2026-06-02T00:00:00Z'), Date.parse('2026-06-03T00:00:00Z'));
    await insertActivity(h, 'la_last_month', Date.parse('2026-05-02T00:00:00Z'), Date.parse('2026-05-03T00:00:00Z'));
    await retentionJob(h.ctx).run(now);
    expect(await activityIds(h)).toEqual(['la_this_month']);
  });
});
