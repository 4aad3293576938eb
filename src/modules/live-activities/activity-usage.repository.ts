import type { Period } from './activity-usage.types';
import type { ActivityRow } from './live-activities.types';
import type { Dialect } from '../../db/sql/dialect';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { ACTIVITY_COLUMNS, ACTIVITY_SHAPE } from './activity-columns';
import { repository } from '../../db/sql/repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Only activities with an instance (started on at least one device) are billed: one that no phone
 * could show (an iPhone without a push-to-start token) uses no minutes. SQL condition on `activities`.
 */
const BILLED_SQL = 'EXISTS (SELECT 1 FROM activity_instances i WHERE i.activity_id = activities.id)';

/** The part of [started_at, ended_at or `open`) inside [from, to), ms: never negative. */
const overlap = (d: Dialect, open: string, from: string, to: string) =>
  d.greatest('0', `${d.least(`COALESCE(ended_at, ${open})`, to)} - ${d.greatest('started_at', from)}`);
const bigint = (d: Dialect, param: string) => d.typed(param, 'bigint');

// Sums of the time billed activities were Active inside a period, one indexed query each, so they
// stay cheap for any number of activities. SUM is numeric on PostgreSQL: `numbers` reads it back.
const used = statement<{ ms: number | null }>(
  (d) => `SELECT SUM(${overlap(d, bigint(d, '$1'), bigint(d, '$3'), bigint(d, '$2'))}) AS ms
            FROM activities WHERE app_id = $4 AND started_at < $2 AND (ended_at IS NULL OR ended_at > $3) AND ${BILLED_SQL}`,
  { numbers: ['ms'] },
);
const ended = statement<{ ms: number | null }>(
  (d) => `SELECT SUM(${overlap(d, 'ended_at', bigint(d, '$2'), bigint(d, '$1'))}) AS ms
            FROM activities WHERE app_id = $3 AND state = 'Ended' AND started_at < $1 AND ended_at > $2 AND ${BILLED_SQL}`,
  { numbers: ['ms'] },
);
// One row per day of the period so far: each day's share of every activity's active time.
const daily = statement<{ day: number; ms: number | null }>(
  (d) => `WITH RECURSIVE days(day) AS (SELECT ${bigint(d, '$1')} UNION ALL SELECT day + ${DAY_MS} FROM days WHERE day + ${DAY_MS} <= ${bigint(d, '$2')})
          SELECT day, (SELECT SUM(${overlap(d, bigint(d, '$2'), 'day', `day + ${DAY_MS}`)})
                         FROM activities WHERE app_id = $3 AND started_at < day + ${DAY_MS} AND (ended_at IS NULL OR ended_at > day) AND ${BILLED_SQL}) AS ms
            FROM days ORDER BY day`,
  { numbers: ['day', 'ms'] },
);
// A broadcast is metered as one activity while it runs. Its rows are read here, by the meter, so
// that live-activities does not import broadcasts, which builds on it.
const broadcasts = statement<{ ms: number | null }>(
  (d) => `SELECT sum(${d.least(`coalesce(ended_at, ${bigint(d, '$3')})`, bigint(d, '$3'))} - ${d.greatest('started_at', bigint(d, '$2'))}) AS ms
    FROM broadcasts WHERE app_id = $1 AND started_at < $3 AND (ended_at IS NULL OR ended_at > $2)`,
  { numbers: ['ms'] },
);
const appsWithActive = statement<{ id: string; plan: string }>(`SELECT DISTINCT a.id, a.plan FROM apps a JOIN activities x ON x.app_id = a.id AND x.state = 'Active'`);
const activeCount = statement<{ n: number }>(`SELECT count(*) AS n FROM activities WHERE app_id = $1 AND state = 'Active'`, { numbers: ['n'] });
const active = statement<ActivityRow>(`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = $1 AND state = 'Active' ORDER BY started_at, id`, ACTIVITY_SHAPE);

/** Live activity minutes (usage, quota) and the Active activities they come from. */
export const activityUsageRepository = repository((sql: Sql) => {
  return {
    /** Milliseconds the app's billed activities were Active inside the period, an Active one counting up to `now`. */
    usedMs: async (appId: string, period: Period, now: number): Promise<number> => (await sql.one(used, [now, period.end, period.start, appId]))?.ms ?? 0,
    /** What billed activities that are no longer Active contributed inside the period, ms. */
    endedMs: async (appId: string, period: Period): Promise<number> => (await sql.one(ended, [period.end, period.start, appId]))?.ms ?? 0,
    /** Each day (its start, ms) from the period's start to `now`, with the Active time of that day, ms. */
    dailyMs: async (appId: string, periodStart: number, now: number): Promise<{ day: number; ms: number }[]> => (await sql.all(daily, [periodStart, now, appId])).map((d) => ({ day: d.day, ms: d.ms ?? 0 })),
    /** Milliseconds the app's broadcasts ran inside [from, to). */
    broadcastMs: async (appId: string, from: number, to: number): Promise<number> => (await sql.one(broadcasts, [appId, from, to]))?.ms ?? 0,
    /** Apps with an Active activity, and their plans (the quota job looks only at these). */
    appsWithActive: (): Promise<{ id: string; plan: string }[]> => sql.all(appsWithActive),
    activeCount: async (appId: string): Promise<number> => (await sql.one(activeCount, [appId]))!.n,
    /** The Active activities of an app, oldest first. */
    active: (appId: string): Promise<ActivityRow[]> => sql.all(active, [appId]),
  };
});

export type ActivityUsageRepository = ReturnType<typeof activityUsageRepository>;
