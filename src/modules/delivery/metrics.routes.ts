import { Elysia } from 'elysia';
import type { Services } from '../../services';
import { deliveryMetrics } from './metrics';

/** `GET /metrics`: Prometheus text format, without authentication (like /healthz; keep it off public networks). */
export function metricsRoutes(services: Services) {
  const { registry } = deliveryMetrics(services.ctx);
  return new Elysia({ detail: { tags: ['Operations'] } }).get(
    '/metrics',
    async () => new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } }),
    {
      detail: {
        responses: { 200: { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } } },
        summary: 'Prometheus metrics',
        description: 'Deliveries by transport and outcome, queue depth, send latency, active live activities, paused channels.',
      },
    },
  );
}
