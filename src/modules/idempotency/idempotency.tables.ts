import { defineTable, index, integer, primaryKey, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/**
 * Idempotency-Key of public mutating requests: one row per app and key, kept 24 h (the retention
 * job prunes older ones). `running` while the first request is being handled; `done` with the
 * answer that a repeat replays. 5xx answers are not kept (the row is released).
 */
export const { sqlite: idempotencyKeys, pg: idempotencyKeysPg } = defineTable(
  'idempotency_keys',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    key: text().notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text().notNull(),
    state: text(['running', 'done']).notNull(),
    status: integer(),
    contentType: text(),
    body: text(),
    createdAt: time().notNull(),
    /** The instance running a `running` key's request. */
    claimedBy: text().pgOnly(),
  },
  (t) => [primaryKey(t.appId, t.key), index('idempotency_keys_created').on(t.createdAt)],
);
