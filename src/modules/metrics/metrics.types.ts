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
