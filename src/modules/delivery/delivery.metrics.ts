import { Gauge } from 'prom-client';
import type { AppContext } from '../../context';
import { isletMetrics, type IsletMetrics } from '../metrics/metrics';

const HEALTH_STATES = ['healthy', 'degraded', 'down'] as const;

const registered = new WeakSet<IsletMetrics>();

/**
 * Delivery's part of a context's metrics (the metrics module imports no feature): deliveries
 * failed or superseded while queueing counted in `islet_deliveries_total`, and the endpoint health
 * gauge. Registered once per metrics, by createApp or the delivery engine, whichever comes first.
 * @example const metrics = registerDeliveryMetrics(ctx);
 */
export function registerDeliveryMetrics(ctx: AppContext): IsletMetrics {
  const metrics = isletMetrics(ctx);
  if (registered.has(metrics)) return metrics;
  registered.add(metrics);
  // Failed or superseded while queueing, in the API's transaction (the worker counts its own outcomes).
  ctx.outbox.onSettled((s) => metrics.deliveries.inc({ app: s.appId, provider: s.provider, kind: s.kind, outcome: s.outcome }, s.count));
  const health = ctx.endpointHealth;
  new Gauge({
    name: 'islet_endpoint_health',
    help: 'Health of each provider endpoint an app sent to since the start: 1 for its current state (healthy; degraded: slowed down; down: deliveries held, probing), 0 for the others.',
    labelNames: ['app', 'provider', 'endpoint', 'state'] as const,
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const c of health.list())
        for (const state of HEALTH_STATES) this.set({ app: c.appId, provider: c.provider, endpoint: c.endpoint, state }, c.state === state ? 1 : 0);
    },
  });
  return metrics;
}
