import type { Db } from '../database';
import { promised } from '../promised';
import type { ActivityRow } from '../../../modules/live-activities/live-activities.repository';
import { ACTIVITY_COLUMNS } from '../../repositories/live-activities';
import type { Period, ActivityUsageRepository } from '../../../modules/live-activities/activity-usage.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Only activities with an instance (started on at least one device) are billed: one that no phone
 * could show (an iPhone without a push-to-start token) uses no minutes. SQL condition on `activities`.
 */
const BILLED_SQL = 'EXISTS (SELECT 1 FROM activity_instances i WHERE i.activity_id = activities.id)';

/**
 * The statements behind live activity minutes (usage, quota): sums of the time billed activities
 * were Active inside a period, one indexed query each, so they stay cheap for any number of activities.
 */
function activityUsageStatements(db: Db) {
  const client = db.$client;
  const used = client.query<{ ms: number | null }, [number, number, number, string, number, number]>(
    `SELECT SUM(MAX(0, MIN(COALESCE(ended_at, ?1), ?2) - MAX(started_at, ?3))) AS ms
       FROM activities
      WHERE app_id = ?4 AND started_at < ?5 AND (ended_at IS NULL OR ended_at > ?6) AND ${BILLED_SQL}`,
  );
  const ended = client.query<{ ms: number | null }, [number, number, string, number, number]>(
    `SELECT SUM(MAX(0, MIN(ended_at, ?1) - MAX(started_at, ?2))) AS ms
       FROM activities WHERE app_id = ?3 AND state = 'Ended' AND started_at < ?4 AND ended_at > ?5 AND ${BILLED_SQL}`,
  );
  // One row per day of the period so far: each day's share of every activity's active time.
  const daily = client.query<{ day: number; ms: number | null }, [number, number, number, string]>(
    `WITH RECURSIVE days(day) AS (SELECT ?1 UNION ALL SELECT day + ${DAY_MS} FROM days WHERE day + ${DAY_MS} <= ?2)
     SELECT day, (SELECT SUM(MAX(0, MIN(COALESCE(ended_at, ?3), day + ${DAY_MS}) - MAX(started_at, day)))
                    FROM activities WHERE app_id = ?4 AND started_at < day + ${DAY_MS} AND (ended_at IS NULL OR ended_at > day) AND ${BILLED_SQL}) AS ms
       FROM days`,
  );
  const appsWithActive = client.query<{ id: string; plan: string }, []>(
    `SELECT DISTINCT a.id, a.plan FROM apps a JOIN activities x ON x.app_id = a.id AND x.state = 'Active'`,
  );
  const activeCount = client.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM activities WHERE app_id = ? AND state = 'Active'`);
  const active = client.query<ActivityRow, [string]>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = ? AND state = 'Active' ORDER BY started_at, id`);

  return {
    /** Milliseconds the app's billed activities were Active inside the period, an Active one counting up to `now`. */
    usedMs: (appId: string, period: Period, now: number): number => used.get(now, period.end, period.start, appId, period.end, period.start)?.ms ?? 0,
    /** What billed activities that are no longer Active contributed inside the period, ms. */
    endedMs: (appId: string, period: Period): number => ended.get(period.end, period.start, appId, period.end, period.start)?.ms ?? 0,
    /** Each day (its start, ms) from the period's start to `now`, with the Active time of that day, ms. */
    dailyMs: (appId: string, periodStart: number, now: number): { day: number; ms: number }[] =>
      daily.all(periodStart, now, now, appId).map((d) => ({ day: d.day, ms: d.ms ?? 0 })),
    /** Apps with an Active activity, and their plans (the quota job looks only at these). */
    appsWithActive: (): { id: string; plan: string }[] => appsWithActive.all(),
    activeCount: (appId: string): number => activeCount.get(appId)!.n,
    /** The Active activities of an app, oldest first. */
    active: (appId: string): ActivityRow[] => active.all(appId),
  };
}

/** The repository over activityUsageStatements: every method returns a Promise. */
export const activityUsageRepository = (db: Db): ActivityUsageRepository => promised(activityUsageStatements(db));
