import type { AppContext } from './context';
import { groupCommit } from './db/group-commit';
import { storageHealth } from './db/storage-health';
import { appsService } from './modules/apps/apps.service';
import { serviceAuth } from './modules/auth/service-auth';
import { consoleSessions } from './modules/console/console-sessions';
import { signInThrottle } from './modules/console/sign-in-throttle';
import { devicesRepository } from './modules/devices/devices.repository';
import { liveActivitiesService } from './modules/live-activities/live-activities.service';
import { notificationsService } from './modules/notifications/notifications.service';
import { releasesService } from './modules/notifications/releases.service';

/** The use cases and repositories the routes call, built once per application from its context. */
export function buildServices(ctx: AppContext) {
  const apps = appsService(ctx);
  const devices = devicesRepository(ctx.db);
  const releases = releasesService(ctx, apps);
  // One group commit per database: API writes of the same event-loop turn share a transaction.
  const write = groupCommit(ctx.db.$client, storageHealth(ctx.db.$client, ctx.logger));
  return {
    ctx,
    clock: ctx.clock,
    apps,
    auth: serviceAuth(ctx, apps),
    consoleSessions: consoleSessions(ctx.clock),
    signInThrottle: signInThrottle(ctx.clock),
    devices,
    releases,
    notifications: notificationsService(ctx, releases, devices),
    liveActivities: liveActivitiesService(ctx, devices, write),
  };
}

export type Services = ReturnType<typeof buildServices>;
