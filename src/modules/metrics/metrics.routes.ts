import { Elysia } from 'elysia';
import { errors } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import { safeEqual } from '../../lib/secrets';
import type { Services } from '../../services';

/**
 * `GET /metrics`: Prometheus text format. Open like /healthz unless `[metrics] token` is set; then
 * it needs `Authorization: Bearer <token>` (Prometheus: `authorization: { credentials: … }`).
 */
export function metricsRoutes(services: Services) {
  const { registry } = services.ctx.metrics;
  const token = services.ctx.config.metrics.token;
  return new Elysia({ detail: { tags: ['Operations'] } }).get(
    '/metrics',
    async ({ request }) => {
      if (token) {
        const match = /^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '');
        if (!match || !safeEqual(match[1]!.trim(), token)) throw new HttpError(401, 'metrics need Authorization: Bearer <metrics token>');
      }
      return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
    },
    {
      response: errors(401),
      detail: {
        responses: {
          200: { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
        summary: 'Prometheus metrics',
        description:
          'HTTP requests and latency by route template, deliveries by app, provider, kind and outcome, queue depth, provider latency, channel state, scheduler jobs, active live activities, process and event-loop metrics. Protected by a Bearer token when `[metrics] token` is set.',
      },
    },
  );
}
