import type { AuditRepository, AuditRow } from '../../../modules/audit/audit.repository';
import { auditLog } from '../schema';
import { all, one, run, type PgScope } from '../query';
import { setClause } from './columns';

const COLUMNS = `id, at, actor, address, action, app_id AS "appId", target, summary`;

/** The audit log on PostgreSQL: append and list, newest first. */
export function auditPg({ q }: PgScope): AuditRepository {
  return {
    async insert(row) {
      const set = setClause(auditLog, row);
      await run(q, `INSERT INTO audit_log (${set.columns.join(', ')}) VALUES (${set.columns.map((_, i) => `$${i + 1}`).join(', ')})`, set.values);
    },
    async list(filter, limit, offset) {
      const clauses: string[] = [];
      const params: unknown[] = [];
      const add = (clause: string, value: unknown) => (params.push(value), clauses.push(clause.replace('?', `$${params.length}`)));
      if (filter.appId) add('app_id = ?', filter.appId);
      if (filter.action) add('action = ?', filter.action);
      if (filter.actor) add('actor = ?', filter.actor);
      if (filter.since !== undefined) add('at >= ?', filter.since);
      if (filter.until !== undefined) add('at < ?', filter.until);
      const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
      const n = params.length;
      const rows = await all<AuditRow>(q, `SELECT ${COLUMNS} FROM audit_log ${where} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, limit, offset], ['id', 'at']);
      const total = (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM audit_log ${where}`, params))!.n;
      return { rows, total };
    },
  };
}
