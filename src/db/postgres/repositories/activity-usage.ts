import type { ActivityUsageRepository } from '../../../modules/live-activities/activity-usage.repository';
import type { ActivityRow } from '../../../modules/live-activities/live-activities.repository';
import { all, one, type PgScope } from '../query';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from '../../repositories/live-activities';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Only activities with an instance are billed (see modules/live-activities/activity-usage.repository.ts). */
const BILLED_SQL = 'EXISTS (SELECT 1 FROM activity_instances i WHERE i.activity_id = activities.id)';

/** Live activity minutes on PostgreSQL: SQLite's scalar MIN/MAX are LEAST/GREATEST here. */
export function activityUsagePg({ q }: PgScope): ActivityUsageRepository {
  return {
    usedMs: async (appId, period, now) =>
      (await one<{ ms: number | null }>(
        q,
        `SELECT SUM(GREATEST(0, LEAST(COALESCE(ended_at, $1::bigint), $2::bigint) - GREATEST(started_at, $3::bigint))) AS ms
           FROM activities WHERE app_id = $4 AND started_at < $2 AND (ended_at IS NULL OR ended_at > $3) AND ${BILLED_SQL}`,
        [now, period.end, period.start, appId],
        ['ms'],
      ))?.ms ?? 0,
    endedMs: async (appId, period) =>
      (await one<{ ms: number | null }>(
        q,
        `SELECT SUM(GREATEST(0, LEAST(ended_at, $1::bigint) - GREATEST(started_at, $2::bigint))) AS ms
           FROM activities WHERE app_id = $3 AND state = 'Ended' AND started_at < $1 AND ended_at > $2 AND ${BILLED_SQL}`,
        [period.end, period.start, appId],
        ['ms'],
      ))?.ms ?? 0,
    dailyMs: async (appId, periodStart, now) =>
      (
        await all<{ day: number; ms: number | null }>(
          q,
          `WITH RECURSIVE days(day) AS (SELECT $1::bigint UNION ALL SELECT day + ${DAY_MS} FROM days WHERE day + ${DAY_MS} <= $2::bigint)
           SELECT day, (SELECT SUM(GREATEST(0, LEAST(COALESCE(ended_at, $2::bigint), day + ${DAY_MS}) - GREATEST(started_at, day)))
                          FROM activities WHERE app_id = $3 AND started_at < day + ${DAY_MS} AND (ended_at IS NULL OR ended_at > day) AND ${BILLED_SQL}) AS ms
             FROM days ORDER BY day`,
          [periodStart, now, appId],
          ['day', 'ms'],
        )
      ).map((d) => ({ day: d.day, ms: d.ms ?? 0 })),
    appsWithActive: () => all<{ id: string; plan: string }>(q, `SELECT DISTINCT a.id, a.plan FROM apps a JOIN activities x ON x.app_id = a.id AND x.state = 'Active'`),
    activeCount: async (appId) => (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM activities WHERE app_id = $1 AND state = 'Active'`, [appId]))!.n,
    active: (appId) => all<ActivityRow>(q, `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND state = 'Active' ORDER BY started_at, id`, [appId], ACTIVITY_SHAPE.numbers),
  };
}
