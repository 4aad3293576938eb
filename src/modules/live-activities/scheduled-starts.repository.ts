import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';
import { firstTimestamp, type ActivityRow, type NewActivity } from './live-activities.types';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from './activity-columns';

/** A waiting start as the due job claims it. */
export interface ScheduledStartRow {
  activityId: string;
  appId: string;
  dueAt: number;
  status: 'waiting' | 'started' | 'cancelled' | 'not_started';
  /** JSON of the start's EventOptions. */
  options: string;
  createdAt: number;
}

const COLUMNS = `activity_id AS "activityId", app_id AS "appId", due_at AS "dueAt", status, options, created_at AS "createdAt"`;
const SHAPE = { numbers: ['dueAt', 'createdAt'] };

const insertActivity = statement(
  `INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, started_at, last_timestamp)
   VALUES ($1, $2, $3, $4, $5, 'Scheduled', $6, $7, $8, 0)`,
);
const insertStart = statement(`INSERT INTO scheduled_starts (activity_id, app_id, due_at, status, options, created_at) VALUES ($1, $2, $3, 'waiting', $4, $5)`);
// Through scheduled_starts_due (status, due_at): only due rows are read, however many wait.
const claimDue = statement<ScheduledStartRow>(
  (d) => `SELECT ${COLUMNS} FROM scheduled_starts WHERE status = 'waiting' AND due_at <= $1 ORDER BY due_at LIMIT 1${d.skipLocked}`,
  SHAPE,
);
const anyDue = statement<{ one: number }>(`SELECT 1 AS one FROM scheduled_starts WHERE status = 'waiting' AND due_at <= $1 LIMIT 1`, { numbers: ['one'] });
const finish = statement(`UPDATE scheduled_starts SET status = $2 WHERE activity_id = $1 AND status = 'waiting'`);
const markStarted = statement(`UPDATE activities SET state = 'Active', started_at = $1, last_timestamp = $2 WHERE id = $3 AND state = 'Scheduled'`);
const markEnded = statement(`UPDATE activities SET state = 'Ended', ended_at = $1, end_reason = $2 WHERE id = $3 AND state = 'Scheduled'`);
// The activity of a claimed start, unless a request holds it (a DELETE cancelling it): that one
// locked the activity first and waits for the start's row, so waiting here would deadlock.
const activityUnlessBusy = statement<ActivityRow>(
  (d) => `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND id = $2${d.skipLocked}`,
  ACTIVITY_SHAPE,
);
const zones = statement<{ id: string; zone: string | null }>((d) => `SELECT id, time_zone AS zone FROM devices WHERE ${d.inList('id', '$1')}`);

/** Scheduled starts (`scheduled_starts`) and the Scheduled activities they start. */
export const scheduledStartsRepository = repository((sql: Sql) => ({
  /** Writes Scheduled activities (their `startedAt`: when due) and their waiting starts; the caller holds the transaction. */
  async insert(rows: readonly NewActivity[], options: string, now: number): Promise<void> {
    for (const r of rows) {
      await sql.run(insertActivity, [r.id, r.appId, r.endUserId, r.templateSlug, r.platform, r.attributes, r.contentState, r.startedAt]);
      await sql.run(insertStart, [r.id, r.appId, r.startedAt, options, now]);
    }
  },
  /**
   * The earliest waiting start due at `now` or before. Inside a transaction: on PostgreSQL the row is
   * locked until it commits and skipped by other instances, so claiming it and queueing the start in
   * one transaction starts the activity once.
   */
  claimDue: (now: number): Promise<ScheduledStartRow | undefined> => sql.one(claimDue, [now]),
  /** Whether a waiting start is due at `now`: one indexed read before a transaction is opened. */
  anyDue: async (now: number): Promise<boolean> => (await sql.one(anyDue, [now])) !== undefined,
  /** Marks a waiting start done; false when it was no longer waiting (started or cancelled meanwhile). */
  finish: async (activityId: string, status: Exclude<ScheduledStartRow['status'], 'waiting'>): Promise<boolean> => (await sql.run(finish, [activityId, status])) > 0,
  /** A Scheduled activity becomes Active: its real start time, from which its minutes count. */
  markStarted: async (activityId: string, now: number): Promise<boolean> => (await sql.run(markStarted, [now, firstTimestamp(now), activityId])) > 0,
  /** A Scheduled activity becomes Ended without having started (cancelled, not_started). */
  markEnded: async (activityId: string, now: number, reason: 'cancelled' | 'not_started'): Promise<boolean> => (await sql.run(markEnded, [now, reason, activityId])) > 0,
  /** The claimed start's activity, locked; undefined while another transaction holds it (see activityUnlessBusy). */
  activityUnlessBusy: (appId: string, activityId: string): Promise<ActivityRow | undefined> => sql.one(activityUnlessBusy, [appId, activityId]),
  /** The IANA zone each of these devices reported (null: none). */
  zones: async (deviceIds: readonly string[]): Promise<Map<string, string | null>> => new Map((await sql.all(zones, [deviceIds])).map((r) => [r.id, r.zone])),
}));
