import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

// Through deliveries_quiet_due (delivery.tables.ts): only the quiet holds whose time came, however
// many wait. PostgreSQL: locked and skipped by another instance releasing at the same moment.
const due = statement<{ id: number; messageId: number }>(
  (d) => `SELECT id, message_id AS "messageId" FROM deliveries WHERE status = 'held' AND hold_kind = 'quiet' AND next_attempt_at <= $1
           ORDER BY next_attempt_at LIMIT $2${d.skipLocked}`,
  { numbers: ['id', 'messageId'] },
);
const expiries = statement<{ id: number; createdAt: number; content: string }>(
  (d) => `SELECT id, created_at AS "createdAt", content FROM messages WHERE ${d.inList('id', '$1', 'bigint')}`,
  { numbers: ['id', 'createdAt'] },
);
// Still held for quiet hours: a cancel or an erasure meanwhile changed the row, and wins.
const release = statement(
  (d) => `UPDATE deliveries SET status = 'pending', hold_kind = NULL, reason = NULL, next_attempt_at = $1, updated_at = $1
           WHERE ${d.inList('id', '$2', 'bigint')} AND status = 'held' AND hold_kind = 'quiet'`,
);
const expire = statement(
  (d) => `UPDATE deliveries SET status = 'dropped', hold_kind = NULL, reason = $3, updated_at = $1
           WHERE ${d.inList('id', '$2', 'bigint')} AND status = 'held' AND hold_kind = 'quiet'`,
);
/** Deliveries held for quiet hours (hold kind `quiet`, due at `next_attempt_at`): their release. */
export const quietHoldsRepository = repository((sql: Sql) => ({
  /** Up to `limit` quiet holds due at `now`, with their message; in a transaction (locked on PostgreSQL). */
  due: (now: number, limit: number) => sql.all(due, [now, limit]),
  /** The messages' creation times and contents (their ttl). */
  messages: (ids: readonly number[]) => sql.all(expiries, [ids]),
  /** Makes the deliveries due now; answers how many. */
  release: (ids: readonly number[], now: number) => sql.run(release, [now, ids]),
  /** Drops the deliveries with `reason`; answers how many. */
  expire: (ids: readonly number[], now: number, reason: string) => sql.run(expire, [now, ids, reason]),
}));
