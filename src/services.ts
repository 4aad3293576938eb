import type { AppContext } from './context';
import { clientAddresses } from './http/client-address';
import { activityStreamsService } from './modules/activity-streams/activity-streams.service';
import { appsService } from './modules/apps/apps.service';
import { credentialsReset } from './modules/delivery/endpoint-health/endpoint-reset';
import { auditService } from './modules/audit/audit.service';
import { broadcastsService } from './modules/broadcasts/broadcasts.service';
import { authThrottle } from './modules/auth/auth-throttle';
import { serviceAuth } from './modules/apps/service-auth';
import { consoleSessions } from './modules/auth/console-sessions';
import { idempotency } from './modules/idempotency/idempotency';
import { liveActivitiesService } from './modules/live-activities/live-activities.service';
import { liveActivityTemplatesService } from './modules/live-activities/live-activity-templates.service';
import { notificationsService } from './modules/notifications/notifications.service';
import { opensService } from './modules/notifications/opens/opens.service';
import { receiptsService } from './modules/notifications/receipts/receipts.service';
import { releasesService } from './modules/notifications/releases/releases.service';
import { usersService } from './modules/users/users.service';
import { webhooksService } from './modules/webhooks/webhooks.service';
import { devicesRepository } from './modules/devices/devices.repository';
import { generateVapidKeys, importVapidKey } from './modules/delivery/providers/webpush/webpush.vapid';
import { webPushService } from './modules/web-push/web-push.service';
import { widgetsService } from './modules/widgets/widgets.service';

/** The use cases and repositories the routes call, built once per application from its context. */
export function buildServices(ctx: AppContext) {
  const apps = appsService(ctx, credentialsReset(ctx));
  const devices = devicesRepository(ctx.db.sql);
  const releases = releasesService(ctx, apps);
  const notifications = notificationsService(ctx, releases);
  const clients = clientAddresses(ctx.config.server.trusted_proxies);
  const liveActivities = liveActivitiesService(ctx);
  const { coordination } = ctx;
  return {
    ctx,
    clock: ctx.clock,
    apps,
    audit: auditService(ctx),
    broadcasts: broadcastsService(ctx, apps),
    clients,
    auth: serviceAuth(ctx, apps, clients, authThrottle(coordination.failureThrottle('service-keys', ctx.clock, { freeFailures: 10 }), 'failed authentications')),
    consoleSessions: consoleSessions(ctx.clock, coordination.sessions()),
    /** Shared by console sign-in and the admin API's Bearer token: both guess the same secret. */
    adminThrottle: authThrottle(coordination.failureThrottle('admin-token', ctx.clock), 'wrong tokens'),
    devices,
    idempotency: idempotency(ctx),
    releases,
    notifications,
    opens: opensService(ctx, notifications.scheduleOf),
    receipts: receiptsService(ctx),
    liveActivities,
    liveActivityTemplates: liveActivityTemplatesService(ctx),
    streams: activityStreamsService(ctx, liveActivities),
    users: usersService(ctx),
    webhooks: webhooksService(ctx, apps),
    webPush: webPushService(ctx, { generate: generateVapidKeys, importPem: importVapidKey }),
    widgets: widgetsService(ctx),
  };
}

export type Services = ReturnType<typeof buildServices>;
