import { firstTimestamp, type ActivityRow, type LiveActivitiesRepository, type NewActivity } from '../../modules/live-activities/live-activities.repository';
import type { Param, Sql } from '../sql/sql';
import { oneOff, statement, valuesList } from '../sql/statement';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from './activity-columns';

/** Rows per INSERT statement when starting many activities (9 parameters each): full batches use one prepared statement. */
const INSERT_BATCH = 100;

const insertSql = (rows: number) =>
  `INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, started_at, last_timestamp)
   VALUES ${valuesList(rows, 9, 0, (p) => `(${p.slice(0, 5).join(', ')}, 'Active', ${p.slice(5).join(', ')})`)}`;
const insertBatch = statement(insertSql(INSERT_BATCH));
// Every update and end reads one.
const find = statement<ActivityRow>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2`, ACTIVITY_SHAPE);
// PostgreSQL's row lock keeps a concurrent write (another request, another instance) waiting until
// this transaction ends; SQLite's one writer already does, and it has no FOR UPDATE.
const findForWrite = statement<ActivityRow>(
  (d) => `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2${d.name === 'postgres' ? ' FOR UPDATE' : ''}`,
  ACTIVITY_SHAPE,
);
const byId = statement<ActivityRow>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE id = $1`, ACTIVITY_SHAPE);
const activeWithoutLiveInstance = statement<ActivityRow>(
  `SELECT ${ACTIVITY_COLUMNS} FROM activities a WHERE state = 'Active' AND started_at <= $1
      AND NOT EXISTS (SELECT 1 FROM activity_instances i WHERE i.activity_id = a.id AND i.ended_at IS NULL)`,
  ACTIVITY_SHAPE,
);
const recordUpdate = statement(`UPDATE activities SET content_state = $1, last_timestamp = $2 WHERE id = $3 AND state = 'Active'`);
const pruneEnded = statement(
  `DELETE FROM activities WHERE state = 'Ended' AND ended_at < $1
     AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.activity_id = activities.id AND d.status IN ('pending', 'held', 'sending'))`,
);
const markEnded = statement(
  `UPDATE activities SET state = 'Ended', ended_at = $1, end_reason = $2, content_state = coalesce($3, content_state) WHERE id = $4 AND state = 'Active'`,
);
const nextTimestamp = statement<{ ts: number }>(
  (d) => `UPDATE activities SET last_timestamp = ${d.greatest(d.typed('$1', 'bigint'), 'last_timestamp + 1')} WHERE id = $2 RETURNING last_timestamp AS ts`,
  { numbers: ['ts'] },
);

const values = (r: NewActivity) => [r.id, r.appId, r.endUserId, r.templateSlug, r.platform, r.attributes, r.contentState, r.startedAt, firstTimestamp(r.startedAt)];

/** Activities (see modules/live-activities/live-activities.repository.ts). Hot paths (start, update, end) use statements prepared once. */
export function liveActivitiesRepository(sql: Sql): LiveActivitiesRepository {
  return {
    async insert(rows) {
      let i = 0;
      for (; i + INSERT_BATCH <= rows.length; i += INSERT_BATCH) await sql.run(insertBatch, rows.slice(i, i + INSERT_BATCH).flatMap(values));
      if (i < rows.length) await sql.run(oneOff(insertSql(rows.length - i)), rows.slice(i).flatMap(values));
    },
    byId: (id) => sql.one(byId, [id]),
    activeWithoutLiveInstance: (cutoff) => sql.all(activeWithoutLiveInstance, [cutoff]),
    find: (appId, id) => sql.one(find, [appId, id]),
    findForWrite: (appId, id) => sql.one(findForWrite, [appId, id]),
    recordUpdate: async (id, contentState, apnsTimestamp) => (await sql.run(recordUpdate, [contentState, apnsTimestamp, id])) === 1,
    pruneEnded: (before) => sql.run(pruneEnded, [before]),
    markEnded: async (id, endedAt, reason, finalState) => (await sql.run(markEnded, [endedAt, reason, finalState, id])) === 1,
    nextTimestamp: async (id, now) => (await sql.one(nextTimestamp, [firstTimestamp(now), id]))!.ts,
    async list(appId, filter, limit, offset) {
      const params: Param[] = [appId];
      const clauses = ['app_id = $1'];
      const add = (column: string, value: string) => (params.push(value), clauses.push(`${column} = $${params.length}`));
      if (filter.state) add('state', filter.state);
      if (filter.endUserId !== undefined) add('end_user_id', filter.endUserId);
      if (filter.templateSlug !== undefined) add('template_slug', filter.templateSlug);
      const where = clauses.join(' AND ');
      const n = params.length;
      const rows = await sql.all(
        oneOff<ActivityRow>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE ${where} ORDER BY started_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, ACTIVITY_SHAPE),
        [...params, limit, offset],
      );
      const total = (await sql.one(oneOff<{ n: number }>(`SELECT count(*) AS n FROM activities WHERE ${where}`, { numbers: ['n'] }), params))!.n;
      return { rows, total };
    },
  };
}
