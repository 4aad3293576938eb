import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { devicesRepository } from '../devices/devices.repository';
import { instancesRepository } from './instances.repository';
import { liveActivitiesRepository } from './live-activities.repository';
import { priorityBudgetRepository } from './priority-budget/priority-budget.repository';

/** What a device's app reports of its instance of an activity (issue 47). */
export interface InstanceReport {
  deviceId: string;
  /** ActivityKit's `activityStateUpdates`: `dismissed` or `ended` ends the instance (no more pushes). */
  state?: 'active' | 'dismissed' | 'ended';
  /** `ActivityAuthorizationInfo().frequentPushesEnabled`: true raises the device's budget to `frequentPriority10PerHour`. */
  frequentPushesEnabled?: boolean;
}

/**
 * Records a device's report on its instance of the activity, in one unit of work: the state (a
 * dismissed or ended instance is ended now, so updates and the end no longer go to it) and the
 * device's frequent-pushes permission. 404 for an unknown activity, a device that is not one of
 * its end user's, or (with `state`) a device the activity has no instance on.
 * @example await reportInstanceState(ctx, 'shop', 'la_1', { deviceId: 'dev_1', state: 'dismissed' })
 */
export function reportInstanceState(ctx: AppContext, appId: string, activityId: string, report: InstanceReport) {
  if (report.state === undefined && report.frequentPushesEnabled === undefined) throw new HttpError(400, 'state or frequentPushesEnabled is required');
  return ctx.db.write(async (tx) => {
    const activity = await liveActivitiesRepository(tx).findForWrite(appId, activityId);
    if (!activity) throw new HttpError(404, 'live activity not found');
    const device = await devicesRepository(tx).find(appId, report.deviceId);
    if (!device || device.endUserId !== activity.endUserId) throw new HttpError(404, "device not found: deviceId is not a device of the activity's end user");
    const now = ctx.clock.now();
    if (report.state !== undefined) {
      if (!(await priorityBudgetRepository(tx).reportState(activityId, device.id, report.state))) throw new HttpError(404, 'the activity has no instance on this device');
      if (report.state !== 'active') await instancesRepository(tx).end(activityId, now, [device.id]);
    }
    if (report.frequentPushesEnabled !== undefined) await priorityBudgetRepository(tx).setFrequentPushes(device.id, report.frequentPushesEnabled, now);
    return { success: true as const };
  });
}
