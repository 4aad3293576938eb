import type { Db } from '../../db/database';

export interface QueueDepthRow {
  app: string;
  provider: string;
  state: string;
  n: number;
}

export interface ChannelRow {
  app: string;
  apns: number;
  fcm: number;
  apnsPaused: number;
  fcmPaused: number;
}

/**
 * The metrics read from the database at scrape time: one grouped statement each, prepared once.
 * Unfinished deliveries are few (the outbox drains them) and reached through the deliveries_due
 * index; the provider of a delivery not yet sent is its device's platform's (apns / fcm).
 */
export function metricsRepository(db: Db) {
  const client = db.$client;
  const queue = client.query<QueueDepthRow, []>(
    `SELECT d.app_id AS app,
            COALESCE(d.provider, CASE dev.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' ELSE 'none' END) AS provider,
            d.status AS state, count(*) AS n
       FROM deliveries d LEFT JOIN devices dev ON dev.id = d.device_id
      WHERE d.status IN ('pending', 'held', 'sending')
      GROUP BY 1, 2, 3`,
  );
  const active = client.query<{ app: string; platform: string; n: number }, []>(
    `SELECT app_id AS app, platform, count(*) AS n FROM activities WHERE state = 'Active' GROUP BY app_id, platform`,
  );
  const channels = client.query<ChannelRow, []>(
    `SELECT id AS app, apns_sealed IS NOT NULL AS apns, fcm_sealed IS NOT NULL AS fcm,
            apns_paused_reason IS NOT NULL AS apnsPaused, fcm_paused_reason IS NOT NULL AS fcmPaused
       FROM apps`,
  );
  return {
    queueDepth: (): QueueDepthRow[] => queue.all(),
    activeActivities: () => active.all(),
    channels: (): ChannelRow[] => channels.all(),
  };
}
