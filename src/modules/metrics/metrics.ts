import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Coordination } from '../../coordination/coordination';
import type { Store } from '../../db/store';
import { metricsRepository } from './metrics.repository';

export type DeliveryOutcomeLabel = 'delivered' | 'retry' | 'dropped' | 'paused' | 'failed' | 'held' | 'unreachable' | 'superseded';

/** One app channel's state for `islet_channel_state`; issue 23's channel health can feed more states. */
export interface ChannelState {
  app: string;
  provider: 'apns' | 'fcm' | 'webpush';
  state: string;
}

/** States always exported (0 or 1) for every channel, so a dashboard sees a state leave, not vanish. */
export const CHANNEL_STATES = ['simulator', 'active', 'paused'] as const;

/**
 * The Prometheus metrics of one application (context). Counters and histograms are fed where
 * things happen (HTTP hooks, delivery worker, scheduler); gauges are read from the database at
 * scrape time; every series carries `islet_instance`. This module imports no feature: delivery adds its own (registerDeliveryMetrics). No label names a device or an end user: apps, providers, routes and states only.
 */
export interface IsletMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpSeconds: Histogram<'method' | 'route' | 'status'>;
  deliveries: Counter<'app' | 'provider' | 'kind' | 'outcome'>;
  providerSeconds: Histogram<'provider'>;
  jobRuns: Counter<'job' | 'outcome'>;
  jobSeconds: Histogram<'job'>;
  /** Where `islet_channel_state` reads the channels from at scrape time; replaceable. */
  channelStates: () => Promise<ChannelState[]>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of a context (`ctx.metrics`, made by bootstrap on first use): the `/metrics` route and
 * HTTP hooks (built by createApp), the delivery engine and the scheduler reach the same registry.
 * `source`: what the gauges read at scrape time.
 * @example ctx.metrics.deliveries.inc({ app: 'demo', provider: 'apns', kind: 'la_update', outcome: 'delivered' });
 */
export function createMetrics(ctx: { coordination: Coordination; db: Store }): IsletMetrics {
  const registry = new Registry();
  // Every series names the instance it came from (several on one PostgreSQL); not `instance`,
  // which Prometheus sets from the scrape target.
  registry.setDefaultLabels({ islet_instance: ctx.coordination.instance.id });
  // Process memory, CPU, open file descriptors, handles, heap, and event-loop lag (p50/p90/p99).
  collectDefaultMetrics({ register: registry, prefix: 'islet_' });
  const repo = metricsRepository(ctx.db.sql);
  const r = [registry];
  activeCounts(registry);

  const httpRequests = new Counter({
    name: 'islet_http_requests_total',
    help: 'HTTP requests answered, by method, route template (unmatched for unknown paths) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: r,
  });
  const httpSeconds = new Histogram({
    name: 'islet_http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: r,
  });
  const deliveries = new Counter({
    name: 'islet_deliveries_total',
    help: 'Delivery attempts by app, provider (apns, fcm, simulator, none), message kind and outcome (delivered, retry, dropped, paused, failed, held, superseded; unreachable: no answer, not an attempt).',
    labelNames: ['app', 'provider', 'kind', 'outcome'] as const,
    registers: r,
  });
  const providerSeconds = new Histogram({
    name: 'islet_provider_request_seconds',
    help: 'Time from handing a push to a provider (apns, fcm, simulator) to its answer.',
    labelNames: ['provider'] as const,
    buckets: [...LATENCY_BUCKETS, 30],
    registers: r,
  });
  const jobRuns = new Counter({
    name: 'islet_scheduler_job_runs_total',
    help: 'Scheduler job runs by job and outcome (ok, error).',
    labelNames: ['job', 'outcome'] as const,
    registers: r,
  });
  const jobSeconds = new Histogram({
    name: 'islet_scheduler_job_duration_seconds',
    help: 'How long each scheduler job run took.',
    labelNames: ['job'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: r,
  });

  const metrics: IsletMetrics = {
    registry,
    httpRequests,
    httpSeconds,
    deliveries,
    providerSeconds,
    jobRuns,
    jobSeconds,
    channelStates: async () =>
      (await repo.channels()).flatMap((row) => [
        { app: row.app, provider: 'apns' as const, state: row.apns ? (row.apnsPaused ? 'paused' : 'active') : 'simulator' },
        { app: row.app, provider: 'fcm' as const, state: row.fcm ? (row.fcmPaused ? 'paused' : 'active') : 'simulator' },
      ]),
  };

  new Gauge({
    name: 'islet_delivery_queue_depth',
    help: 'Unfinished deliveries by app, provider and state (pending: due or waiting for a retry; held: waiting for a token or a paused channel; sending: in flight).',
    labelNames: ['app', 'provider', 'state'] as const,
    registers: r,
    async collect() {
      const rows = await repo.queueDepth();
      this.reset();
      for (const row of rows) this.set({ app: row.app, provider: row.provider, state: row.state }, row.n);
    },
  });
  new Gauge({
    name: 'islet_scheduler_leader',
    help: 'Whether this instance runs the scheduler (quota, iOS expiry, retention, webhooks): 1 or 0; one instance of a database is 1.',
    registers: r,
    collect() {
      this.set(ctx.coordination.leadership.current() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'islet_live_activities_active',
    help: 'Live activities in state Active, by app and platform.',
    labelNames: ['app', 'platform'] as const,
    registers: r,
    async collect() {
      const rows = await repo.activeActivities();
      this.reset();
      for (const row of rows) this.set({ app: row.app, platform: row.platform }, row.n);
    },
  });
  new Gauge({
    name: 'islet_channel_state',
    help: 'State of each app channel: 1 for its current state, 0 for the others (simulator: no credentials; active; paused: the provider refused the credentials).',
    labelNames: ['app', 'provider', 'state'] as const,
    registers: r,
    async collect() {
      const channels = await metrics.channelStates();
      this.reset();
      const states = new Set<string>([...CHANNEL_STATES, ...channels.map((c) => c.state)]);
      for (const c of channels) for (const state of states) this.set({ app: c.app, provider: c.provider, state }, c.state === state ? 1 : 0);
    },
  });
  return metrics;
}

/**
 * prom-client names three gauges `…_total`, which Prometheus keeps for counters (`promtool check
 * metrics` fails on them): they are replaced by the same counts under gauge names.
 */
function activeCounts(registry: Registry): void {
  const counts: [string, string, () => number][] = [
    ['handles', 'libuv handles', () => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length],
    ['requests', 'libuv requests', () => (process as unknown as { _getActiveRequests(): unknown[] })._getActiveRequests().length],
    ['resources', 'resources keeping the event loop alive', () => process.getActiveResourcesInfo().length],
  ];
  for (const [what, help, count] of counts) {
    const old = `islet_nodejs_active_${what}_total`;
    if (!registry.getSingleMetric(old)) continue;
    registry.removeSingleMetric(old);
    new Gauge({
      name: `islet_nodejs_${what}_active`,
      help: `Number of active ${help} (was ${old}).`,
      registers: [registry],
      collect() {
        this.set(count());
      },
    });
  }
}
