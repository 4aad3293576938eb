import { Elysia } from 'elysia';
import type { AppContext } from './context';
import { checkRequestBody, isJsonMediaType, readJsonBody } from './http/body';
import { errorResponse, methodLookup } from './http/error-response';
import { refuseRequest } from './http/methods';
import { requestPath } from './http/request-path';
import { newId } from './lib/ids';
import { activityStreamsRoutes } from './modules/activity-streams/activity-streams.routes';
import { appsAdminRoutes } from './modules/apps/apps.admin.routes';
import { auditAdminRoutes } from './modules/audit/audit.admin.routes';
import { broadcastsAdminRoutes } from './modules/broadcasts/broadcasts.admin.routes';
import { broadcastsRoutes } from './modules/broadcasts/broadcasts.routes';
import { widgetsRoutes } from './modules/widgets/widgets.routes';
import { consoleRoutes } from './modules/console/console.routes';
import { demoAdminRoutes } from './modules/apps/demo.admin.routes';
import { endpointsAdminRoutes } from './modules/delivery/admin/endpoints.admin.routes';
import { deliveriesAdminRoutes } from './modules/delivery/admin/deliveries.admin.routes';
import { deliveryHistoryRepository } from './modules/delivery/admin/delivery-history.repository';
import { devicesAdminRoutes } from './modules/devices/devices.admin.routes';
import { devicesRoutes } from './modules/devices/devices.routes';
import { webPushAdminRoutes, webPushPublicRoutes } from './modules/web-push/web-push.routes';
import { usersRoutes } from './modules/users/users.routes';
import { docsRoutes } from './modules/docs/docs.routes';
import { TEMPLATE_SLUGS } from './modules/live-activities/templates';
import { healthRoutes } from './modules/health/health.routes';
import { instancesAdminRoutes } from './modules/instances/instances.admin.routes';
import { liveActivitiesAdminRoutes } from './modules/live-activities/live-activities.admin.routes';
import { liveActivityTemplatesAdminRoutes } from './modules/live-activities/live-activity-templates.admin.routes';
import { liveActivitiesRoutes } from './modules/live-activities/live-activities.routes';
import { instanceStateRoutes } from './modules/live-activities/instance-state.routes';
import { metricsRoutes } from './modules/metrics/metrics.routes';
import { notificationsRoutes } from './modules/notifications/notifications.routes';
import { opensRoutes } from './modules/notifications/opens/opens.routes';
import { receiptsRoutes } from './modules/notifications/receipts/receipts.routes';
import { releasesAdminRoutes } from './modules/notifications/releases/releases.admin.routes';
import { scheduledSendsAdminRoutes } from './modules/notifications/schedule/scheduled-sends.admin.routes';
import { usageAdminRoutes } from './modules/usage/usage.admin.routes';
import { webhooksAdminRoutes } from './modules/webhooks/webhooks.admin.routes';
import { buildServices, type Services } from './services';

interface RequestInfo {
  id: string;
  start: number;
  /** Set when the answer came from onError, whose Response Elysia does not report afterwards. */
  errorStatus?: number;
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Builds the whole HTTP application from its context. Nothing here listens or reads the
 * environment; tests call `app.handle(new Request(…))`, `serve` hands `app.fetch` to Bun.serve.
 * @example const app = createApp(ctx); const res = await app.handle(new Request('http://x/healthz'));
 */
export function createApp(ctx: AppContext) {
  const services: Services = buildServices(ctx);
  const info = new WeakMap<Request, RequestInfo>();
  let allowedMethods: (request: Request) => string[] = () => [];
  const { metrics } = ctx;
  let routes: () => { method: string; path: string; hooks: { body?: unknown } }[] = () => [];
  const maxBodyBytes = ctx.config.server.max_body_bytes;

  const app = new Elysia({ normalize: false })
    .onRequest(({ request, set, server }) => {
      services.clients.remember(request, server?.requestIP(request)?.address);
      const id = request.headers.get('x-request-id')?.slice(0, 64) || newId('req');
      const meta: RequestInfo = { id, start: performance.now() };
      info.set(request, meta);
      set.headers['x-request-id'] = id;
      const refused = refuseRequest(request) ?? checkRequestBody(request, maxBodyBytes);
      if (refused) {
        meta.errorStatus = refused.status;
        refused.headers.set('x-request-id', id);
        return refused;
      }
    })
    // Every JSON body is read here, under the size, depth, key and UTF-8 limits, before any validation.
    .onParse({ as: 'global' }, ({ request }) => {
      if (isJsonMediaType(request.headers.get('content-type'))) return readJsonBody(request, maxBodyBytes);
    })
    // Idempotency-Key: after authentication (only a request authenticated for its app takes a key)
    // and validation, and on every answer before it is sent.
    .onBeforeHandle({ as: 'global' }, ({ request, body }) => services.idempotency.begin(request, services.auth.authenticatedApp(request)?.id, body))
    .mapResponse({ as: 'global' }, ({ request, responseValue, set }) => services.idempotency.finish(request, responseValue, set.status))
    .onError({ as: 'global' }, ({ code, error, request }) => {
      const meta = info.get(request);
      const id = meta?.id ?? 'unknown';
      ctx.db.storage.failed(error);
      const response = errorResponse(code, error, request, id, allowedMethods, ctx.logger);
      response.headers.set('x-request-id', id);
      if (meta) meta.errorStatus = response.status;
      return response;
    })
    .onAfterResponse({ as: 'global' }, ({ request, set, responseValue, route }) => {
      const meta = info.get(request);
      const status =
        meta?.errorStatus ?? (responseValue instanceof Response ? responseValue.status : typeof set.status === 'number' ? set.status : 200);
      const seconds = meta ? (performance.now() - meta.start) / 1000 : 0;
      // The route template, never the path: ids in paths would make a series per activity.
      const labels = { method: HTTP_METHODS.has(request.method) ? request.method : 'other', route: route || 'unmatched', status };
      metrics.httpRequests.inc(labels);
      metrics.httpSeconds.observe(labels, seconds);
      ctx.logger.info('request', {
        requestId: meta?.id,
        method: request.method,
        path: requestPath(request),
        status,
        durationMs: Math.round(seconds * 100_000) / 100,
      });
    })
    .use(docsRoutes(() => routes(), services, { templateSlugs: TEMPLATE_SLUGS }, { firstDeliveryId: (appId) => deliveryHistoryRepository(ctx.db.sql).firstId(appId) }))
    .use(healthRoutes(services))
    .use(metricsRoutes(services))
    .use(devicesRoutes(services))
    .use(usersRoutes(services))
    .use(liveActivitiesRoutes(services))
    .use(instanceStateRoutes(services))
    .use(activityStreamsRoutes(services))
    .use(broadcastsRoutes(services))
    .use(widgetsRoutes(services))
    .use(appsAdminRoutes(services))
    .use(webPushAdminRoutes(services))
    .use(webPushPublicRoutes(services))
    .use(demoAdminRoutes(services))
    .use(consoleRoutes(services))
    .use(devicesAdminRoutes(services))
    .use(deliveriesAdminRoutes(services))
    .use(endpointsAdminRoutes(services))
    .use(notificationsRoutes(services))
    .use(opensRoutes(services))
    .use(receiptsRoutes(services))
    .use(releasesAdminRoutes(services))
    .use(scheduledSendsAdminRoutes(services))
    .use(liveActivitiesAdminRoutes(services))
    .use(liveActivityTemplatesAdminRoutes(services))
    .use(broadcastsAdminRoutes(services))
    .use(usageAdminRoutes(services))
    .use(auditAdminRoutes(services))
    .use(instancesAdminRoutes(services))
    .use(webhooksAdminRoutes(services));

  allowedMethods = methodLookup(app.routes);
  routes = () => app.routes as never;
  return app;
}

export type IsletApp = ReturnType<typeof createApp>;
