import type { AppContext } from '../../../context';
import { endActivities, endInstances } from '../../live-activities/live-activities.delivery';
import type { Job } from '../scheduler';
import { liveActivitiesRepository } from '../../live-activities/live-activities.repository';
import { instancesRepository } from '../../live-activities/instances.repository';

const HOUR_MS = 60 * 60 * 1000;
/** iOS ends a Live Activity on the Dynamic Island after 8 hours… */
export const IOS_MAX_ACTIVE_MS = 8 * HOUR_MS;
/** …and removes it from the Lock Screen at 12 hours in all. */
export const IOS_MAX_VISIBLE_MS = 12 * HOUR_MS;

/**
 * The iOS 8-hour rule, per instance: every live iOS instance that has run 8 hours is ended as of
 * the time it reached them (not the time this runs, so a restart after downtime catches up
 * exactly), with an end push to that device only and a dismissal date of startedAt + 12 h. An
 * activity is then Ended (`expired`, at startedAt + 8 h) once no instance of it is live; an Android
 * instance lives until the API ends it, so a user with a phone of each keeps the activity Active.
 * Returns how many activities it ended.
 */
export async function expireIosActivities(ctx: AppContext, now: number): Promise<number> {
  const cutoff = now - IOS_MAX_ACTIVE_MS;
  const due = new Map<string, string[]>();
  for (const i of await instancesRepository(ctx.db.sql).dueIos(cutoff)) due.set(i.activityId, [...(due.get(i.activityId) ?? []), i.deviceId]);
  const ended = await ctx.db.write(async (tx) => {
    for (const [activityId, deviceIds] of due) {
      const row = await liveActivitiesRepository(tx).byId(activityId);
      if (!row) continue;
      const endedAt = row.startedAt + IOS_MAX_ACTIVE_MS;
      if (row.state === 'Active') await endInstances(ctx.outbox, tx, row, deviceIds, { endedAt, dismissalAt: row.startedAt + IOS_MAX_VISIBLE_MS, now });
      else await instancesRepository(tx).end(activityId, endedAt, deviceIds);
    }
    // Activities past 8 hours without a live instance (their iOS ones just ended, or none ever started).
    return endActivities(ctx.outbox, tx, await liveActivitiesRepository(tx).activeWithoutLiveInstance(cutoff), {
      reason: 'expired',
      endedAt: (a) => a.startedAt + IOS_MAX_ACTIVE_MS,
      dismissalAt: (a) => a.startedAt + IOS_MAX_VISIBLE_MS,
      now,
    });
  });
  if (due.size > 0 || ended.length > 0) ctx.logger.info('ios activities expired', { instances: due.size, count: ended.length });
  return ended.length;
}

export function iosExpiryJob(ctx: AppContext): Job {
  return { name: 'ios-expiry', intervalMs: ctx.config.scheduler.tick_seconds * 1000, run: async (now) => void (await expireIosActivities(ctx, now)) };
}
