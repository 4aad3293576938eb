import type { AuditFilter, AuditRow, NewAuditRow } from './audit.types';
import { insertRow, writableTable } from '../../db/sql/columns';
import type { Param, Sql } from '../../db/sql/sql';
import { oneOff } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const COLUMNS = `id, at, actor, address, action, app_id AS "appId", target, summary`;
const auditLog = writableTable<AuditRow>('audit_log', { id: true, at: true, actor: true, address: true, action: true, appId: true, target: true, summary: true });

/** The audit log: append and list, newest first. */
export const auditRepository = repository((sql: Sql) => {
  return {
    async insert(row: NewAuditRow): Promise<void> {
      const insert = insertRow(auditLog, row);
      await sql.run(insert.statement, insert.params);
    },
    async list(filter: AuditFilter, limit: number, offset: number): Promise<{ rows: AuditRow[]; total: number }> {
      const clauses: string[] = [];
      const params: Param[] = [];
      const add = (clause: string, value: Param) => (params.push(value), clauses.push(`${clause} $${params.length}`));
      if (filter.appId) add('app_id =', filter.appId);
      if (filter.action) add('action =', filter.action);
      if (filter.actor) add('actor =', filter.actor);
      if (filter.since !== undefined) add('at >=', filter.since);
      if (filter.until !== undefined) add('at <', filter.until);
      const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
      const n = params.length;
      const rows = await sql.all(
        oneOff<AuditRow>(`SELECT ${COLUMNS} FROM audit_log ${where} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, { numbers: ['id', 'at'] }),
        [...params, limit, offset],
      );
      const total = (await sql.one(oneOff<{ n: number }>(`SELECT count(*) AS n FROM audit_log ${where}`, { numbers: ['n'] }), params))!.n;
      return { rows, total };
    },
  };
});

export type AuditRepository = ReturnType<typeof auditRepository>;
