export interface QueueDepthRow {
  app: string;
  provider: string;
  state: string;
  n: number;
}

export interface ChannelRow {
  app: string;
  /** APNs credentials are configured. */
  apns: boolean;
  fcm: boolean;
  /** The channel is paused (a credential the provider refused). */
  apnsPaused: boolean;
  fcmPaused: boolean;
}

/** The metrics repository: one implementation for both databases, src/db/repositories/metrics.ts. */
export interface MetricsRepository {
  queueDepth(): Promise<QueueDepthRow[]>;
  activeActivities(): Promise<{ app: string; platform: string; n: number }[]>;
  channels(): Promise<ChannelRow[]>;
}
