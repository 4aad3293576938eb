import { Elysia } from 'elysia';
import type { AppContext } from './context';
import { checkRequestBody } from './http/body';
import { storageHealth } from './db/storage-health';
import { errorResponse, methodLookup } from './http/error-response';
import { newId } from './lib/ids';
import { appsAdminRoutes } from './modules/apps/apps.admin.routes';
import { consoleRoutes } from './modules/console/console.routes';
import { channelsAdminRoutes } from './modules/delivery/channels.admin.routes';
import { deliveriesAdminRoutes } from './modules/delivery/deliveries.admin.routes';
import { metricsRoutes } from './modules/delivery/metrics.routes';
import { devicesAdminRoutes } from './modules/devices/devices.admin.routes';
import { devicesRoutes } from './modules/devices/devices.routes';
import { docsRoutes } from './modules/docs/docs.routes';
import { healthRoutes } from './modules/health/health.routes';
import { liveActivitiesAdminRoutes } from './modules/live-activities/live-activities.admin.routes';
import { liveActivitiesRoutes } from './modules/live-activities/live-activities.routes';
import { notificationsRoutes } from './modules/notifications/notifications.routes';
import { releasesAdminRoutes } from './modules/notifications/releases.admin.routes';
import { usageAdminRoutes } from './modules/usage/usage.admin.routes';
import { buildServices, type Services } from './services';

export interface CreateAppOptions {
  migrationsFolder?: string;
}

interface RequestInfo {
  id: string;
  start: number;
  /** Set when the answer came from onError, whose Response Elysia does not report afterwards. */
  errorStatus?: number;
}

/**
 * Builds the whole HTTP application from its context. Nothing here listens or reads the
 * environment; tests call `app.handle(new Request(…))`, `serve` hands `app.fetch` to Bun.serve.
 * @example const app = createApp(ctx); const res = await app.handle(new Request('http://x/healthz'));
 */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}) {
  const services: Services = buildServices(ctx);
  const info = new WeakMap<Request, RequestInfo>();
  let allowedMethods: (request: Request) => string[] = () => [];

  const app = new Elysia({ normalize: false })
    .onRequest(({ request, set }) => {
      const id = request.headers.get('x-request-id')?.slice(0, 64) || newId('req');
      const meta: RequestInfo = { id, start: performance.now() };
      info.set(request, meta);
      set.headers['x-request-id'] = id;
      const refused = checkRequestBody(request);
      if (refused) {
        meta.errorStatus = refused.status;
        refused.headers.set('x-request-id', id);
        return refused;
      }
    })
    .onError({ as: 'global' }, ({ code, error, request }) => {
      const meta = info.get(request);
      const id = meta?.id ?? 'unknown';
      storageHealth(ctx.db.$client, ctx.logger).failed(error);
      const response = errorResponse(code, error, request, id, allowedMethods, ctx.logger);
      response.headers.set('x-request-id', id);
      if (meta) meta.errorStatus = response.status;
      return response;
    })
    .onAfterResponse({ as: 'global' }, ({ request, set, responseValue }) => {
      const meta = info.get(request);
      const status =
        meta?.errorStatus ?? (responseValue instanceof Response ? responseValue.status : typeof set.status === 'number' ? set.status : 200);
      ctx.logger.info('request', {
        requestId: meta?.id,
        method: request.method,
        path: new URL(request.url).pathname,
        status,
        durationMs: meta ? Math.round((performance.now() - meta.start) * 100) / 100 : undefined,
      });
    })
    .use(docsRoutes())
    .use(healthRoutes(services, options.migrationsFolder))
    .use(metricsRoutes(services))
    .use(devicesRoutes(services))
    .use(liveActivitiesRoutes(services))
    .use(appsAdminRoutes(services))
    .use(consoleRoutes(services))
    .use(devicesAdminRoutes(services))
    .use(deliveriesAdminRoutes(services))
    .use(channelsAdminRoutes(services))
    .use(notificationsRoutes(services))
    .use(releasesAdminRoutes(services))
    .use(liveActivitiesAdminRoutes(services))
    .use(usageAdminRoutes(services));

  allowedMethods = methodLookup(app.routes);
  return app;
}

export type IsletApp = ReturnType<typeof createApp>;
