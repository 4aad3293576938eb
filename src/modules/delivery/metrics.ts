import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../../context';
import { channelHealth } from './channel-health';

export type DeliveryOutcomeLabel = 'delivered' | 'retry' | 'dropped' | 'paused' | 'failed' | 'held' | 'unreachable';

/** The Prometheus metrics of one application (context): delivery counters fed by the worker, gauges read from the database. */
export interface DeliveryMetrics {
  registry: Registry;
  deliveries: Counter<'provider' | 'outcome'>;
  sendSeconds: Histogram<'provider'>;
}

const byContext = new WeakMap<AppContext, DeliveryMetrics>();

/**
 * The metrics registry of a context, made on first use. The `/metrics` route (built by createApp)
 * and the delivery engine (started by the server) reach the same one through the context they share.
 * @example deliveryMetrics(ctx).deliveries.inc({ provider: 'apns', outcome: 'delivered' });
 */
export function deliveryMetrics(ctx: AppContext): DeliveryMetrics {
  let metrics = byContext.get(ctx);
  if (!metrics) {
    metrics = createMetrics(ctx);
    byContext.set(ctx, metrics);
  }
  return metrics;
}

function createMetrics(ctx: AppContext): DeliveryMetrics {
  const registry = new Registry();
  const client = ctx.db.$client;
  const queue = client.query<{ status: string; n: number }, []>(
    `SELECT status, count(*) AS n FROM deliveries WHERE status IN ('pending', 'held', 'sending') GROUP BY status`,
  );
  const active = client.query<{ platform: string; n: number }, []>(`SELECT platform, count(*) AS n FROM activities WHERE state = 'Active' GROUP BY platform`);
  const paused = client.query<{ apns: number; fcm: number }, []>(
    `SELECT count(apns_paused_reason) AS apns, count(fcm_paused_reason) AS fcm FROM apps`,
  );

  const deliveries = new Counter({
    name: 'islet_deliveries_total',
    help: 'Delivery attempts by transport (apns, fcm, simulator) and outcome (delivered, retry, dropped, paused, failed, held, unreachable: no answer, not an attempt).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const sendSeconds = new Histogram({
    name: 'islet_delivery_send_seconds',
    help: 'Time from handing a request to a transport to its answer.',
    labelNames: ['provider'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'islet_delivery_queue_depth',
    help: 'Deliveries not finished, by status (pending: due or waiting for a retry; held: waiting for a token or a paused channel; sending: in flight).',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const status of ['pending', 'held', 'sending']) this.set({ status }, 0);
      for (const row of queue.all()) this.set({ status: row.status }, row.n);
    },
  });
  new Gauge({
    name: 'islet_live_activities_active',
    help: 'Live activities in state Active, by platform.',
    labelNames: ['platform'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const platform of ['ios', 'android']) this.set({ platform }, 0);
      for (const row of active.all()) this.set({ platform: row.platform }, row.n);
    },
  });
  new Gauge({
    name: 'islet_channels_paused',
    help: 'App channels paused because the provider refused their credentials.',
    labelNames: ['provider'] as const,
    registers: [registry],
    collect() {
      const row = paused.get();
      this.set({ provider: 'apns' }, row?.apns ?? 0);
      this.set({ provider: 'fcm' }, row?.fcm ?? 0);
    },
  });
  const health = channelHealth(ctx);
  const STATE_VALUE = { healthy: 0, degraded: 1, down: 2 } as const;
  new Gauge({
    name: 'islet_channel_state',
    help: 'Health of each delivery channel that carried a request since the start: 0 healthy, 1 degraded, 2 down (deliveries held, probing).',
    labelNames: ['app', 'provider', 'endpoint'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const c of health.list()) this.set({ app: c.appId, provider: c.provider, endpoint: c.endpoint }, STATE_VALUE[c.state]);
    },
  });
  return { registry, deliveries, sendSeconds };
}
