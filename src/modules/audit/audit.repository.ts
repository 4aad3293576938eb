import type { auditLog } from './audit.tables';

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

/** The audit repository: what every database implements (one implementation for both databases: src/db/repositories/audit.ts). */
export interface AuditRepository {
  insert(row: NewAuditRow): Promise<void>;
  list(filter: AuditFilter, limit: number, offset: number): Promise<{ rows: AuditRow[]; total: number }>;
}
