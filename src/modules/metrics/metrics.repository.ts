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

/** The metrics repository: what every database implements (SQLite's in src/db/sqlite/repositories/metrics.ts). */
export interface MetricsRepository {
  queueDepth(): Promise<QueueDepthRow[]>;
  activeActivities(): Promise<{ app: string; platform: string; n: number }[]>;
  channels(): Promise<ChannelRow[]>;
}
