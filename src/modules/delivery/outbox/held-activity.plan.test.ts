import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';

/**
 * An activity's held deliveries (latest wins, token release) are found through
 * `deliveries_held_activity`, which holds only held rows of activities: 20,000 notifications held
 * for quiet hours are not in it, and the lookups read neither them nor the whole table. SQLite
 * without statistics (as served), PostgreSQL analysed.
 */
forEachDatabase('held deliveries of an activity: plans', (database) => {
  let h: Harness<AppContext>;

  beforeAll(async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const series = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`;
    await testRows(h.ctx, `INSERT INTO messages (id, app_id, kind, content, created_at) VALUES (1, 'a1', 'notification', '{}', 0), (2, 'a1', 'la_update', '{}', 0)`);
    const delivery = `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, status, hold_kind, next_attempt_at, created_at, updated_at)`;
    await testRows(h.ctx, `${series(20000)} ${delivery} SELECT 'a1', 1, 'dev_' || i, NULL, 'held', 'quiet', i, 0, 0 FROM n`);
    await testRows(h.ctx, `${series(20)} ${delivery} SELECT 'a1', 2, 'dev_' || i, 'la_' || (i % 4), 'held', 'token', 0, 0, 0 FROM n`);
    if (database === 'postgres') {
      await testRows(h.ctx, `SELECT setval(pg_get_serial_sequence('messages', 'id'), 100)`);
      await testRows(h.ctx, 'ANALYZE');
    }
  }, 60_000);
  afterAll(() => h?.close());

  const plan = async (query: string, params: string[]) =>
    database === 'sqlite'
      ? (await testRows<{ detail: string }>(h.ctx, `EXPLAIN QUERY PLAN ${query.replace(/\$\d/g, '?')}`, params)).map((r) => r.detail).join('\n')
      : (await testRows<{ 'QUERY PLAN': string }>(h.ctx, `EXPLAIN ${query}`, params)).map((r) => r['QUERY PLAN']).join('\n');

  test("an activity's held deliveries, and a device's release, go through the partial index of activities' held rows", async () => {
    const held = await plan(`SELECT id FROM deliveries WHERE activity_id = $1 AND status = 'held'`, ['la_1']);
    expect(held).toMatch(/deliveries_held_activity/);
    const release = await plan(`SELECT id FROM deliveries WHERE activity_id = $1 AND device_id = $2 AND status = 'held' AND hold_kind = 'token'`, ['la_1', 'dev_1']);
    expect(release).not.toMatch(/SCAN deliveries$|Seq Scan on deliveries/m);
    // Only the 20 held rows of activities are in it, not the 20,000 quiet-held notifications.
    if (database === 'postgres') {
      const [size] = await testRows<{ n: number }>(h.ctx, `SELECT reltuples::int AS n FROM pg_class WHERE relname = 'deliveries_held_activity'`);
      expect(Number(size!.n)).toBe(20);
    } else {
      // Statistics only now, after the plans: sqlite_stat1 counts the index's entries first.
      await testRows(h.ctx, 'ANALYZE');
      const [stat] = await testRows<{ stat: string }>(h.ctx, `SELECT stat FROM sqlite_stat1 WHERE idx = 'deliveries_held_activity'`);
      expect(Number(stat!.stat.split(' ')[0])).toBe(20);
    }
  });
});
