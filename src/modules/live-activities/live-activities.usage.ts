import type { PlanConfig } from '../../config/config.schema';
import type { Sql } from '../../db/sql/sql';
import { billingPeriod } from './billing-period';
import { activityUsageRepository } from './activity-usage.repository';

const MINUTE_MS = 60_000;

/**
 * Live activity minutes an app used in the billing period (calendar month, UTC) holding `now`:
 * the sum over its billed activities (see the activity-usage repository) of the time each was Active inside the period, an Active one
 * counting up to `now`, plus the running time of its broadcasts (one broadcast is metered as one
 * activity, whatever its audience). Fractional.
 * @example await usedMinutes(ctx.db.sql, 'demo', clock.now()) // 1234.5
 */
export async function usedMinutes(r: Sql, appId: string, now: number): Promise<number> {
  const period = billingPeriod(now);
  const usage = activityUsageRepository(r);
  const broadcasts = await usage.broadcastMs(appId, period.start, Math.min(now, period.end));
  return ((await usage.usedMs(appId, period, now)) + broadcasts) / MINUTE_MS;
}

/**
 * Whether the plan's minutes are used up: usage ≥ minutes. A plan without `minutes` is
 * unlimited, `minutes = 0` allows none, and a plan with overage is never over.
 */
export function minutesExhausted(plan: Pick<PlanConfig, 'minutes' | 'overage'>, used: number): boolean {
  if (plan.overage || plan.minutes === undefined) return false;
  return used >= plan.minutes;
}
