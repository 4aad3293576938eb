export type Platform = 'ios' | 'android';

export interface NewInstance {
  activityId: string;
  deviceId: string;
  platform: Platform;
  startedAt: number;
}

/** A live instance with the tokens its follow-ups would go to. */
export interface InstanceTarget {
  deviceId: string;
  platform: Platform;
  /** The device's active registration token (Android follow-ups go there); null once refused. */
  deviceTokenId: number | null;
  /** iOS: the instance's update token, if the device reported it. */
  activityTokenId: number | null;
  activityTokenState: 'active' | 'invalid' | null;
}

/** An instance as the admin activity detail shows it. */
export interface InstanceDetail {
  deviceId: string;
  platform: Platform;
  startedAt: number;
  endedAt: number | null;
  /** iOS: the update token's state (null: not reported yet). Android: the registration token's. */
  tokenState: 'active' | 'invalid' | null;
  tokenInvalidReason: string | null;
  lastDeliveryStatus: string | null;
  lastDeliveryReason: string | null;
  lastDeliveryAt: number | null;
}

/** The instances repository: what every database implements (one implementation for both databases: src/db/repositories/instances.ts). */
export interface InstancesRepository {
  /** Writes instances (many rows per statement); one already there is kept. The caller holds the transaction. */
  insert(rows: readonly NewInstance[]): Promise<void>;
  /** The activity's live instances with their tokens, oldest first. */
  live(activityId: string): Promise<InstanceTarget[]>;
  /** When the oldest live iOS instance of the activity started (the 8-hour limit runs from it); null without one. */
  oldestLiveIos(activityId: string): Promise<number | null>;
  /**
   * Ends the live instances of an activity (all, or those of the given devices) and answers the
   * devices of those it ended: not those already ended, also by a concurrent unit of work that
   * committed first (PostgreSQL re-checks `ended_at IS NULL` once the row lock is its).
   */
  end(activityId: string, at: number, deviceIds?: readonly string[]): Promise<string[]>;
  /** Whether the activity was started on any device (live or ended): only then are its minutes billed. */
  any(activityId: string): Promise<boolean>;
  /** Live iOS instances started at or before `cutoff`. */
  dueIos(cutoff: number): Promise<{ activityId: string; deviceId: string }[]>;
  detail(activityId: string): Promise<InstanceDetail[]>;
}
