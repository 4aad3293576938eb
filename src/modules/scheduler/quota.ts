import type { PlanConfig } from '../../config/config.schema';
import type { Db } from '../../db/sqlite/database';
import { ACTIVITY_COLUMNS, type ActivityRow } from '../live-activities/live-activities.repository';

const MINUTE_MS = 60_000;

/** The Active activities of an app, oldest first. */
export function activeActivities(db: Db, appId: string): ActivityRow[] {
  return db.$client
    .query<ActivityRow, [string]>(
      `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE app_id = ? AND state = 'Active' ORDER BY started_at, id`,
    )
    .all(appId);
}

/**
 * When, inside the period [start, until], the app's usage reached the plan's minutes given that
 * the activities in `active` are still running: undefined when it has not (or the plan has no
 * limit). Usage grows by one minute per minute for every running activity, so the moment is found
 * by walking the start times in order: the pieces of a piecewise-linear function.
 */
export function quotaReachedAt(
  db: Db,
  appId: string,
  plan: Pick<PlanConfig, 'minutes' | 'overage'>,
  period: { start: number; end: number },
  until: number,
  active: readonly ActivityRow[],
): number | undefined {
  if (plan.overage || plan.minutes === undefined) return undefined;
  const quotaMs = plan.minutes * MINUTE_MS;
  // What activities that are no longer Active contributed inside the period.
  const endedMs =
    db.$client
      .query<{ ms: number | null }, [number, number, string, number, number]>(
        `SELECT SUM(MAX(0, MIN(ended_at, ?1) - MAX(started_at, ?2))) AS ms
           FROM activities WHERE app_id = ?3 AND state = 'Ended' AND started_at < ?4 AND ended_at > ?5`,
      )
      .get(period.end, period.start, appId, period.end, period.start)?.ms ?? 0;
  const starts = active
    .filter((a) => a.startedAt < period.end)
    .map((a) => Math.max(a.startedAt, period.start))
    .sort((a, b) => a - b);
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
