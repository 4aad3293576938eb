import type { ChannelRow, MetricsRepository, QueueDepthRow } from '../../../modules/metrics/metrics.repository';
import { all, type PgScope } from '../query';

/** The metrics read at scrape time on PostgreSQL; booleans as 0/1 like SQLite's. */
export function metricsPg({ q }: PgScope): MetricsRepository {
  return {
    queueDepth: () =>
      all<QueueDepthRow>(
        q,
        `SELECT app_id AS app, COALESCE(provider, 'unassigned') AS provider, status AS state, count(*)::int AS n
           FROM deliveries WHERE status IN ('pending', 'held', 'sending') GROUP BY status, app_id, provider`,
      ),
    activeActivities: () =>
      all<{ app: string; platform: string; n: number }>(q, `SELECT app_id AS app, platform, count(*)::int AS n FROM activities WHERE state = 'Active' GROUP BY app_id, platform`),
    channels: () =>
      all<ChannelRow>(
        q,
        `SELECT id AS app, (apns_sealed IS NOT NULL)::int AS apns, (fcm_sealed IS NOT NULL)::int AS fcm,
                (apns_paused_reason IS NOT NULL)::int AS "apnsPaused", (fcm_paused_reason IS NOT NULL)::int AS "fcmPaused" FROM apps`,
      ),
  };
}
