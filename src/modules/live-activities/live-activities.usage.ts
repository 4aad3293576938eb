import type { PlanConfig } from '../../config/config.schema';
import type { Db } from '../../db/sqlite/database';
import { billingPeriod } from '../scheduler/billing-period';

const MINUTE_MS = 60_000;

/**
 * Live activity minutes an app used in the billing period (calendar month, UTC) holding `now`:
 * the sum over its activities of the time each was Active inside the period, an Active one
 * counting up to `now`. Fractional. One indexed SQL query, so it stays cheap for any number of
 * activities.
 * @example usedMinutes(db, 'demo', clock.now()) // 1234.5
 */
export function usedMinutes(db: Db, appId: string, now: number): number {
  const { start, end } = billingPeriod(now);
  const row = db.$client
    .query<{ ms: number | null }, [number, number, number, string, number, number]>(
      `SELECT SUM(MAX(0, MIN(COALESCE(ended_at, ?1), ?2) - MAX(started_at, ?3))) AS ms
         FROM activities
        WHERE app_id = ?4 AND started_at < ?5 AND (ended_at IS NULL OR ended_at > ?6)`,
    )
    .get(now, end, start, appId, end, start);
  return (row?.ms ?? 0) / MINUTE_MS;
}

/**
 * Whether the plan's minutes are used up: usage ≥ minutes. A plan without `minutes` is
 * unlimited, `minutes = 0` allows none, and a plan with overage is never over.
 */
export function minutesExhausted(plan: Pick<PlanConfig, 'minutes' | 'overage'>, used: number): boolean {
  if (plan.overage || plan.minutes === undefined) return false;
  return used >= plan.minutes;
}
