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
