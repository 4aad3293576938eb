import type { ChannelRow, QueueDepthRow } from './metrics.types';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

/*
 * The metrics read from the database at scrape time: one grouped statement each, prepared once.
 * Unfinished deliveries are reached through the deliveries_due index (status first) and grouped
 * without a join: a delivery's provider is chosen when the worker claims it, so one never tried
 * counts as `unassigned`. On SQLite this statement alone over 100,000 queued rows: ~25 ms, against
 * ~100 ms when joining devices for their platform; a partial index on (status, app_id, provider)
 * would make it ~5 ms but cost the outbox a write per status change (scripts/bench/operations.ts
 * times whole scrapes).
 */
const queue = statement<QueueDepthRow>(
  `SELECT app_id AS app, COALESCE(provider, 'unassigned') AS provider, status AS state, count(*) AS n
     FROM deliveries WHERE status IN ('pending', 'held', 'sending') GROUP BY status, app_id, provider`,
  { numbers: ['n'] },
);
const active = statement<{ app: string; platform: string; n: number }>(
  `SELECT app_id AS app, platform, count(*) AS n FROM activities WHERE state = 'Active' GROUP BY app_id, platform`,
  { numbers: ['n'] },
);
const channels = statement<ChannelRow>(
  `SELECT id AS app, apns_sealed IS NOT NULL AS apns, fcm_sealed IS NOT NULL AS fcm,
          apns_paused_reason IS NOT NULL AS "apnsPaused", fcm_paused_reason IS NOT NULL AS "fcmPaused"
     FROM apps`,
  { booleans: ['apns', 'fcm', 'apnsPaused', 'fcmPaused'] },
);

/** The metrics read at scrape time. */
export const metricsRepository = repository((sql: Sql) => {
  return {
    queueDepth: (): Promise<QueueDepthRow[]> => sql.all(queue),
    activeActivities: (): Promise<{ app: string; platform: string; n: number }[]> => sql.all(active),
    channels: (): Promise<ChannelRow[]> => sql.all(channels),
  };
});

export type MetricsRepository = ReturnType<typeof metricsRepository>;
