import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Db } from '../database';
import { promised } from '../promised';
import { auditLog } from '../../schema';
import type { AuditRow, NewAuditRow, AuditFilter, AuditRepository } from '../../../modules/audit/audit.repository';

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
export const auditRepository = (db: Db): AuditRepository => promised(auditStatements(db));
