import type { PlanConfig } from '../../config/config.schema';
import type { Sql } from '../../db/sql/sql';
import type { ActivityRow } from '../live-activities/live-activities.types';
import { instancesRepository } from '../live-activities/instances.repository';
import { activityUsageRepository } from '../live-activities/activity-usage.repository';

const MINUTE_MS = 60_000;

/**
 * When, inside the period [start, until], the app's usage reached the plan's minutes given that
 * the activities in `active` are still running: undefined when it has not (or the plan has no
 * limit). Usage grows by one minute per minute for every running billed activity, so the moment is found
 * by walking the start times in order: the pieces of a piecewise-linear function.
 */
export async function quotaReachedAt(
  r: Sql,
  appId: string,
  plan: Pick<PlanConfig, 'minutes' | 'overage'>,
  period: { start: number; end: number },
  until: number,
  active: readonly ActivityRow[],
): Promise<number | undefined> {
  if (plan.overage || plan.minutes === undefined) return undefined;
  const quotaMs = plan.minutes * MINUTE_MS;
  // What activities that are no longer Active contributed inside the period.
  const endedMs = await activityUsageRepository(r).endedMs(appId, period);
  const billed: ActivityRow[] = [];
  for (const a of active) if (a.startedAt < period.end && (await instancesRepository(r).any(a.id))) billed.push(a);
  const starts = billed.map((a) => Math.max(a.startedAt, period.start)).sort((a, b) => a - b);
  const end = Math.min(until, period.end);
  if (endedMs >= quotaMs) return period.start;
  // Walk the segments between consecutive start times; in segment k, k activities run.
  let used = endedMs;
  for (let k = 0; k < starts.length; k++) {
    const from = starts[k]!;
    if (from >= end) break;
    const to = Math.min(starts[k + 1] ?? end, end);
    const running = k + 1;
    const gain = (to - from) * running;
    if (used + gain >= quotaMs) return from + Math.ceil((quotaMs - used) / running);
    used += gain;
  }
  return undefined;
}
