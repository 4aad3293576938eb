

/** The channel-holds repository: what every database implements (SQLite's in src/db/sqlite/repositories/channel-holds.ts). */
export interface ChannelHoldsRepository {
  /** The channel is back: everything held for it is due now. Returns how many waited. */
  release(appId: string, reason: string, now: number): Promise<number>;
  /** Makes one held delivery of the channel due now, to serve as its probe. */
  releaseProbe(appId: string, reason: string, now: number): Promise<boolean>;
  /** The app's credentials for the provider changed: whatever was held for any of its down channels is due now. */
  releaseProvider(appId: string, provider: 'apns' | 'fcm', now: number): Promise<number>;
  /** At start: channel health lives in memory, so whatever a previous process held for a down channel is due again. */
  recover(now: number): Promise<number>;
  /** Deliveries held per down channel of an app, by their reason. */
  heldByReason(appId: string): Promise<Map<string, number>>;
}
