import {
  firstTimestamp,
  type ActivityRow,
  type LiveActivitiesRepository,
  type NewActivity,
} from '../../../modules/live-activities/live-activities.repository';
import { all, one, run, valuesList, type PgScope } from '../query';

/** The columns of an ActivityRow, named as its fields. */
export const ACTIVITY_COLUMNS = `id, app_id AS "appId", end_user_id AS "endUserId", template_slug AS "templateSlug", platform, state, attributes,
  content_state AS "contentState", last_timestamp AS "lastTimestamp", started_at AS "startedAt", ended_at AS "endedAt", end_reason AS "endReason"`;
export const ACTIVITY_NUMBERS = ['lastTimestamp', 'startedAt', 'endedAt'];

/** Rows per INSERT (9 parameters each). */
const INSERT_BATCH = 100;

/** Activities on PostgreSQL. */
export function liveActivitiesPg({ q }: PgScope): LiveActivitiesRepository {
  const values = (r: NewActivity) => [r.id, r.appId, r.endUserId, r.templateSlug, r.platform, r.attributes, r.contentState, r.startedAt, firstTimestamp(r.startedAt)];
  const rows = (text: string, params: unknown[]) => all<ActivityRow>(q, text, params, ACTIVITY_NUMBERS);
  return {
    async insert(list) {
      for (let i = 0; i < list.length; i += INSERT_BATCH) {
        const batch = list.slice(i, i + INSERT_BATCH);
        await run(
          q,
          `INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, started_at, last_timestamp)
           VALUES ${valuesList(batch.length, 9, (p) => `(${p.slice(0, 5).join(', ')}, 'Active', ${p.slice(5).join(', ')})`)}`,
          batch.flatMap(values),
        );
      }
    },
    byId: async (id) => (await rows(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE id = $1`, [id]))[0],
    activeWithoutLiveInstance: (cutoff) =>
      rows(
        `SELECT ${ACTIVITY_COLUMNS} FROM activities a WHERE state = 'Active' AND started_at <= $1
            AND NOT EXISTS (SELECT 1 FROM activity_instances i WHERE i.activity_id = a.id AND i.ended_at IS NULL)`,
        [cutoff],
      ),
    find: async (appId, id) => (await rows(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2`, [appId, id]))[0],
    // The row lock keeps a concurrent write (another request, another instance) waiting until this transaction ends.
    findForWrite: async (appId, id) => (await rows(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2 FOR UPDATE`, [appId, id]))[0],
    recordUpdate: async (id, contentState, apnsTimestamp) =>
      (await run(q, `UPDATE activities SET content_state = $1, last_timestamp = $2 WHERE id = $3 AND state = 'Active'`, [contentState, apnsTimestamp, id])) === 1,
    pruneEnded: (before) =>
      run(
        q,
        `DELETE FROM activities WHERE state = 'Ended' AND ended_at < $1
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.activity_id = activities.id AND d.status IN ('pending', 'held', 'sending'))`,
        [before],
      ),
    markEnded: async (id, endedAt, reason, finalState) =>
      (await run(
        q,
        `UPDATE activities SET state = 'Ended', ended_at = $1, end_reason = $2, content_state = coalesce($3, content_state) WHERE id = $4 AND state = 'Active'`,
        [endedAt, reason, finalState, id],
      )) === 1,
    nextTimestamp: async (id, now) =>
      (await one<{ ts: number }>(q, 'UPDATE activities SET last_timestamp = GREATEST($1::bigint, last_timestamp + 1) WHERE id = $2 RETURNING last_timestamp AS ts', [
        firstTimestamp(now),
        id,
      ], ['ts']))!.ts,
    async list(appId, filter, limit, offset) {
      const params: unknown[] = [appId];
      const clauses = ['app_id = $1'];
      const add = (column: string, value: unknown) => (params.push(value), clauses.push(`${column} = $${params.length}`));
      if (filter.state) add('state', filter.state);
      if (filter.endUserId !== undefined) add('end_user_id', filter.endUserId);
      if (filter.templateSlug !== undefined) add('template_slug', filter.templateSlug);
      const where = clauses.join(' AND ');
      const n = params.length;
      const page = await rows(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE ${where} ORDER BY started_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [
        ...params,
        limit,
        offset,
      ]);
      const total = (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM activities WHERE ${where}`, params))!.n;
      return { rows: page, total };
    },
  };
}
