export type Platform = 'ios' | 'android' | 'web';

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
  /** The device's active registration token or subscription (Android and web follow-ups go there); null once refused. */
  deviceTokenId: number | null;
  /** iOS: the instance's update token, if the device reported it. */
  activityTokenId: number | null;
  activityTokenState: 'active' | 'invalid' | null;
  /** The instance's sliding hour of priority-10 updates (priority-budget/priority-decision.ts). */
  priority10Sent: string | null;
  /** What the device's app last reported of frequent pushes (null: never). */
  frequentPushesEnabled: boolean | null;
}

/** An instance as the admin activity detail shows it. */
export interface InstanceDetail {
  deviceId: string;
  platform: Platform;
  startedAt: number;
  endedAt: number | null;
  /** What the app last reported of the instance (null: nothing). */
  reportedState: 'active' | 'dismissed' | 'ended' | null;
  /** iOS: the update token's state (null: not reported yet). Android: the registration token's; web: the subscription's. */
  tokenState: 'active' | 'invalid' | null;
  tokenInvalidReason: string | null;
  lastDeliveryStatus: string | null;
  lastDeliveryReason: string | null;
  lastDeliveryAt: number | null;
}
