import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { usedMinutes } from '../live-activities/live-activities.usage';
import { billingPeriod } from '../scheduler/billing-period';

const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60_000;
const round = (minutes: number) => Math.round(minutes * 100) / 100;

/** An app's live activity minutes in the current billing period, against its plan, with a daily series. */
export function usageReport(ctx: AppContext, appId: string, planName: string) {
  const now = ctx.clock.now();
  const period = billingPeriod(now);
  const plan = ctx.config.plans[planName];
  const used = usedMinutes(ctx.db.sqlite, appId, now);
  const quota = plan?.minutes ?? null;
  // One row per day of the period so far: each day's share of every activity's active time.
  const daily = ctx.db.sqlite.$client
    .query<{ day: number; ms: number | null }, [number, number, number, string]>(
      `WITH RECURSIVE days(day) AS (SELECT ?1 UNION ALL SELECT day + ${DAY_MS} FROM days WHERE day + ${DAY_MS} <= ?2)
       SELECT day, (SELECT SUM(MAX(0, MIN(COALESCE(ended_at, ?3), day + ${DAY_MS}) - MAX(started_at, day)))
                      FROM activities WHERE app_id = ?4 AND started_at < day + ${DAY_MS} AND (ended_at IS NULL OR ended_at > day)) AS ms
         FROM days`,
    )
    .all(period.start, now, now, appId);
  const active = ctx.db.sqlite.$client
    .query<{ n: number }, [string]>(`SELECT count(*) AS n FROM activities WHERE app_id = ? AND state = 'Active'`)
    .get(appId)!.n;
  return {
    plan: planName,
    periodStart: isoTime(period.start),
    periodEnd: isoTime(period.end),
    minutesUsed: round(used),
    quota,
    overage: plan?.overage ?? false,
    overageMinutes: quota === null ? 0 : round(Math.max(0, used - quota)),
    activeActivities: active,
    daily: daily.map((d) => ({ date: isoTime(d.day).slice(0, 10), minutes: round((d.ms ?? 0) / MINUTE_MS) })),
  };
}
