import { firstTimestamp, type ActivityFilter, type ActivityRow, type NewActivity } from './live-activities.types';
import type { Param, Sql } from '../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../db/sql/statement';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from './activity-columns';
import { repository } from '../../db/sql/repository';

/** Rows per INSERT statement when starting many activities (9 parameters each): full batches use one prepared statement. */
const INSERT_BATCH = 100;

const insertSql = (rows: number) =>
  `INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, started_at, last_timestamp)
   VALUES ${valuesList(rows, 9, 0, (p) => `(${p.slice(0, 5).join(', ')}, 'Active', ${p.slice(5).join(', ')})`)}`;
const insertBatch = statement(insertSql(INSERT_BATCH));
// Every update and end reads one.
const find = statement<ActivityRow>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2`, ACTIVITY_SHAPE);
// PostgreSQL's row lock keeps a concurrent write (another request, another instance) waiting until
// this transaction ends, and the row version it writes (a new `xmin`, the values unchanged) makes an
// update that read the row before write nothing and read again (optimistic-update.ts); SQLite's one
// writer already serializes.
const findForWrite = statement<ActivityRow>(
  (d) =>
    d.name === 'postgres'
      ? `UPDATE activities SET last_timestamp = last_timestamp WHERE app_id = $1 AND id = $2 RETURNING ${ACTIVITY_COLUMNS}`
      : `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2`,
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

/** Activities. Hot paths (start, update, end) use statements prepared once. */
export const liveActivitiesRepository = repository((sql: Sql) => {
  return {
    /** Writes new Active activities, many rows per statement; the caller holds the transaction. */
    async insert(rows: readonly NewActivity[]): Promise<void> {
      let i = 0;
      for (; i + INSERT_BATCH <= rows.length; i += INSERT_BATCH) await sql.run(insertBatch, rows.slice(i, i + INSERT_BATCH).flatMap(values));
      if (i < rows.length) await sql.run(oneOff(insertSql(rows.length - i)), rows.slice(i).flatMap(values));
    },
    /** The activity with that id, whatever its app (the scheduler's look-ups). */
    byId: (id: string): Promise<ActivityRow | undefined> => sql.one(byId, [id]),
    /** Active activities started at or before `cutoff` of which no instance is live. */
    activeWithoutLiveInstance: (cutoff: number): Promise<ActivityRow[]> => sql.all(activeWithoutLiveInstance, [cutoff]),
    /** The app's activity with that id; another app's id is simply not found. */
    find: (appId: string, id: string): Promise<ActivityRow | undefined> => sql.one(find, [appId, id]),
    /**
     * `find` for a write that computes from the row (its state, its lastTimestamp): the row stays the
     * latest until the transaction ends. PostgreSQL locks it (a no-op UPDATE: concurrent writers,
     * also on other instances, wait, and an optimistic update that read it before reads again);
     * SQLite's one writer makes it `find`.
     */
    findForWrite: (appId: string, id: string): Promise<ActivityRow | undefined> => sql.one(findForWrite, [appId, id]),
    /**
     * An update of an Active activity: its new contentState and the APNs timestamp of the update
     * (`timestampAfter` its row's `lastTimestamp`, read in the same transaction), in one statement.
     * False when it is not (or no longer) Active.
     */
    recordUpdate: async (id: string, contentState: string, apnsTimestamp: number): Promise<boolean> => (await sql.run(recordUpdate, [contentState, apnsTimestamp, id])) === 1,
    /** Retention: deletes Ended activities that ended before `before` and have no delivery left to send. */
    pruneEnded: (before: number): Promise<number> => sql.run(pruneEnded, [before]),
    /** Marks an Active activity Ended (with a final contentState, JSON, when given); false when it was not Active. */
    markEnded: async (id: string, endedAt: number, reason: string, finalState: string | null): Promise<boolean> => (await sql.run(markEnded, [endedAt, reason, finalState, id])) === 1,
    /**
     * The APNs timestamp of the activity's next event, and records it: the current second, or one
     * more than the last event's when that is not older. iOS ignores an event whose timestamp is not
     * newer than the last it applied, and the field has whole seconds, so two events in one second
     * would otherwise tie and the second be lost. The price: a burst of n events in one second runs
     * up to n seconds ahead of the clock, and the lead shrinks again as soon as events slow down.
     * Every instance gets every event of its activity in this order, so this is strictly increasing
     * per instance too. Called inside the transaction that queues the event.
     */
    nextTimestamp: async (id: string, now: number): Promise<number> => (await sql.one(nextTimestamp, [firstTimestamp(now), id]))!.ts,
    /** A page of the app's activities, newest first (startedAt, then id), and how many match in all. */
    async list(appId: string, filter: ActivityFilter, limit: number, offset: number): Promise<{ rows: ActivityRow[]; total: number }> {
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
});

export type LiveActivitiesRepository = ReturnType<typeof liveActivitiesRepository>;
