import { Counter, Gauge } from 'prom-client';
import type { IsletMetrics } from '../metrics/metrics';
import type { EndpointHealth } from './endpoint-health/endpoint-health';
import type { Outbox } from './outbox/outbox';

const HEALTH_STATES = ['healthy', 'degraded', 'down'] as const;

/**
 * Delivery's part of a context's metrics (the metrics module imports no feature): deliveries
 * failed or superseded while queueing counted in `islet_deliveries_total`, and the endpoint health
 * gauge. Registered once, as the context's metrics are made (bootstrap).
 * @example const metrics = registerDeliveryMetrics(createMetrics(ctx), outbox, endpointHealth);
 */
export function registerDeliveryMetrics(metrics: IsletMetrics, outbox: Outbox, health: EndpointHealth): IsletMetrics {
  // Failed or superseded while queueing, in the API's transaction (the worker counts its own outcomes).
  outbox.onSettled((s) => metrics.deliveries.inc({ app: s.appId, provider: s.provider, kind: s.kind, outcome: s.outcome }, s.count));
  const pushes = new Counter({
    name: 'islet_live_activity_pushes_total',
    help: 'Live Activity pushes queued to devices, by event and the APNs priority they go at (10 spends the device budget, 5 does not); chosen: auto (priority "auto") or asked.',
    labelNames: ['app', 'event', 'priority', 'chosen'] as const,
    registers: [metrics.registry],
  });
  outbox.onQueued(({ appId, content, count }) => {
    if (content.type !== 'live_activity') return;
    pushes.inc({ app: appId, event: content.event, priority: String(content.priority ?? 10), chosen: content.autoPriority ? 'auto' : 'asked' }, count);
  });
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
