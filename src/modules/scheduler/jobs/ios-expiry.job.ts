import type { AppContext } from '../../../context';
import { endActivities } from '../../live-activities/live-activities.delivery';
import { ACTIVITY_COLUMNS, type ActivityRow } from '../../live-activities/live-activities.repository';
import type { Job } from '../scheduler';

const HOUR_MS = 60 * 60 * 1000;
/** iOS ends a Live Activity on the Dynamic Island after 8 hours… */
export const IOS_MAX_ACTIVE_MS = 8 * HOUR_MS;
/** …and removes it from the Lock Screen at 12 hours in all. */
export const IOS_MAX_VISIBLE_MS = 12 * HOUR_MS;

/**
 * Ends every iOS activity that has been Active for 8 hours, as of the time it reached them (not
 * the time this runs, so a restart after downtime catches up exactly), with a dismissal date of
 * startedAt + 12 h. Returns how many it ended.
 */
export function expireIosActivities(ctx: AppContext, now: number): number {
  const due = ctx.db.$client
    .query<ActivityRow, [number]>(
      `SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE state = 'Active' AND platform = 'ios' AND started_at <= ?`,
    )
    .all(now - IOS_MAX_ACTIVE_MS);
  if (due.length === 0) return 0;
  const ended = endActivities(ctx.db, due, {
    reason: 'expired',
    endedAt: (a) => a.startedAt + IOS_MAX_ACTIVE_MS,
    dismissalAt: (a) => a.startedAt + IOS_MAX_VISIBLE_MS,
    now,
  });
  ctx.logger.info('ios activities expired', { count: ended.length });
  return ended.length;
}

export function iosExpiryJob(ctx: AppContext): Job {
  return { name: 'ios-expiry', intervalMs: ctx.config.scheduler.tick_seconds * 1000, run: (now) => void expireIosActivities(ctx, now) };
}
