import { defineTable, id, index, text, time } from '../../db/table';

/**
 * Who changed what through the admin API, the console or the command line. Kept apart from the
 * app (no foreign key): deleting an app keeps the record of who deleted it. Never holds a secret.
 */
export const { sqlite: auditLog, pg: auditLogPg } = defineTable(
  'audit_log',
  {
    id: id(),
    at: time().notNull(),
    /** `admin-token:<8 hex of its SHA-256>`, `console:<8 hex of the session id's SHA-256>` or `cli`. */
    actor: text().notNull(),
    /** The client's address (`local` from the command line). */
    address: text().notNull(),
    /** e.g. `app.create`, `secret.rotate`, `apns.set`, `release.status`, `admin-token.reset`. */
    action: text().notNull(),
    appId: text(),
    /** What was changed, e.g. `apps/demo/releases/3`. */
    target: text().notNull(),
    /** JSON of the change's non-secret fields. */
    summary: text().notNull(),
  },
  (t) => [index('audit_log_at').on(t.at), index('audit_log_app').on(t.appId, t.id)],
);
