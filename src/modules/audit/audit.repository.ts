import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/sqlite/database';
import { promised } from '../../db/sqlite/promised';
import { auditLog } from '../../db/schema';

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = Omit<AuditRow, 'id'>;

export interface AuditFilter {
  appId?: string;
  action?: string;
  actor?: string;
  /** Milliseconds, inclusive. */
  since?: number;
  /** Milliseconds, exclusive. */
  until?: number;
}

/** The audit log table: append and list, newest first. */
function auditStatements(db: Db) {
  return {
    insert(row: NewAuditRow): void {
      db.insert(auditLog).values(row).run();
    },

    list(filter: AuditFilter, limit: number, offset: number): { rows: AuditRow[]; total: number } {
      const conditions: (SQL | undefined)[] = [
        filter.appId ? eq(auditLog.appId, filter.appId) : undefined,
        filter.action ? eq(auditLog.action, filter.action) : undefined,
        filter.actor ? eq(auditLog.actor, filter.actor) : undefined,
        filter.since !== undefined ? gte(auditLog.at, filter.since) : undefined,
        filter.until !== undefined ? lt(auditLog.at, filter.until) : undefined,
      ];
      const where = and(...conditions);
      const rows = db.select().from(auditLog).where(where).orderBy(desc(auditLog.id)).limit(limit).offset(offset).all();
      const total = db.select({ n: count() }).from(auditLog).where(where).get()?.n ?? 0;
      return { rows, total };
    },
  };
}

/** The repository over auditStatements: every method returns a Promise. */
export const auditRepository = (db: Db) => promised(auditStatements(db));

export type AuditRepository = ReturnType<typeof auditRepository>;
