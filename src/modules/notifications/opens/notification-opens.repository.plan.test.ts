import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../../test-support/harness';
import { apnsToken } from '../../../test-support/apns-standin';
import { testRows } from '../../../test-support/test-sql';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';
import { postgresDialect, sqliteDialect } from '../../../db/sql/dialect';
import { render, type Statement } from '../../../db/sql/statement';
import { OPENS_STATEMENTS } from './notification-opens.repository';

/**
 * The opens' and the message list's statements read through indexes, not whole tables, on both
 * databases: an outbox of 25,000 deliveries (a fan-out of 5,000 to one message of app a1, 20,000
 * over another app's 5,000 notifications among its 50,000 other messages), SQLite without statistics (as served), PostgreSQL analysed
 * (as autovacuum leaves it).
 */
forEachDatabase('notification-opens plans', (database) => {
  let h: Harness<AppContext>;
  let device: string;
  const dialect = database === 'sqlite' ? sqliteDialect : postgresDialect;

  beforeAll(async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await h.createApp({ id: 'a2' });
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: 'ada', platform: 'ios', token: apnsToken('plan') });
    device = res.body.device.id;
    const series = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`;
    // Messages 1-50 are a1's, 51-5050 a2's notifications, then 50,000 Live Activity updates of a2.
    await testRows(h.ctx, `${series(55050)} INSERT INTO messages (id, app_id, kind, content, created_at) SELECT i, CASE WHEN i <= 50 THEN 'a1' ELSE 'a2' END, CASE WHEN i <= 5050 THEN 'notification' ELSE 'la_update' END, '{}', i FROM n`);
    await testRows(h.ctx, `${series(5050)} INSERT INTO notification_messages (public_id, app_id, message_id) SELECT 'msg_' || i, CASE WHEN i <= 50 THEN 'a1' ELSE 'a2' END, i FROM n`);
    const delivery = `INSERT INTO deliveries (app_id, message_id, device_id, token_id, status, next_attempt_at, created_at, updated_at)`;
    await testRows(h.ctx, `${series(5000)} ${delivery} SELECT 'a1', 1, 'dev_' || i, 1000000 + i, 'delivered', 0, 0, 0 FROM n`);
    await testRows(h.ctx, `${series(20000)} ${delivery} SELECT 'a2', 51 + i % 5000, 'dev_b' || (i % 400), 2000000 + i % 400, 'delivered', 0, 0, 0 FROM n`);
    await testRows(h.ctx, `${series(5000)} INSERT INTO notification_opens (message_id, device_id, opened_at) SELECT 51 + i % 5000, 'dev_b' || i, 0 FROM n`);
    if (database === 'postgres') {
      // The ids above were given explicitly: the identity continues after them.
      await testRows(h.ctx, `SELECT setval(pg_get_serial_sequence('messages', 'id'), 60000)`);
      await testRows(h.ctx, 'ANALYZE');
    }
  }, 120_000);
  afterAll(() => h?.close());

  /** The plan's lines: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN text. */
  async function plan(s: Statement<unknown>, params: (string | number | number[])[]): Promise<string[]> {
    const values = params.map((p) => (Array.isArray(p) ? (database === 'sqlite' ? JSON.stringify(p) : `{${p.join(',')}}`) : p));
    if (database === 'sqlite') return (await testRows<{ detail: string }>(h.ctx, `EXPLAIN QUERY PLAN ${render(s, dialect)}`, values)).map((r) => r.detail);
    return (await testRows<{ 'QUERY PLAN': string }>(h.ctx, `EXPLAIN ${render(s, dialect)}`, values)).map((r) => r['QUERY PLAN']);
  }
  /** A line reading a whole table: SQLite's `SCAN t` (not a covering-index scan of a SEARCH), PostgreSQL's `Seq Scan on t`. */
  const wholeTable = (lines: string[], table: string) =>
    lines.filter((l) => new RegExp(`^SCAN ${table}\\b(?! USING COVERING INDEX)|Seq Scan on ${table}\\b`).test(l.trim().replace(/^->\s*/, '')));

  test('is this device sent that message: through its tokens, not the fan-out of 5,000', async () => {
    const lines = await plan(OPENS_STATEMENTS.sentTo, ['a1', 1, device]);
    expect(wholeTable(lines, 'deliveries')).toEqual([]);
    expect(lines.join('\n')).toMatch(/deliveries_notification_token/);
    expect(lines.join('\n')).not.toMatch(/deliveries_message/);
  });

  test('the page of an app’s messages and its total: through notification_messages_app', async () => {
    for (const lines of [await plan(OPENS_STATEMENTS.page, ['a1', 50, 0]), await plan(OPENS_STATEMENTS.total, ['a1'])]) {
      expect([...wholeTable(lines, 'notification_messages'), ...wholeTable(lines, 'messages')]).toEqual([]);
      expect(lines.join('\n')).toMatch(/notification_messages_app/);
    }
  });

  test('the counts of a page: deliveries through deliveries_message, opens through their key', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => i + 1);
    const deliveries = await plan(OPENS_STATEMENTS.deliveryCounts, [ids]);
    expect(wholeTable(deliveries, 'deliveries')).toEqual([]);
    expect(deliveries.join('\n')).toMatch(/deliveries_message/);
    for (const lines of [await plan(OPENS_STATEMENTS.counts, [ids]), await plan(OPENS_STATEMENTS.count, [1])]) {
      expect(wholeTable(lines, 'notification_opens')).toEqual([]);
    }
  });
});
