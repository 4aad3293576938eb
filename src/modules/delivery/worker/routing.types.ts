import type { ApnsCredentials, FcmCredentials } from '../../apps/credentials';
import type { PushRequest, TransportName } from '../providers/transport';
import type { VapidKeys } from '../providers/webpush/webpush.vapid';

// The router's types, apart from its code so that each transport's routing (webpush.routing.ts)
// and delivery.routing.ts can share them without importing each other.

/** A claimed delivery with everything its routing needs (the deliveries repository joins it). */
export interface ClaimedDelivery {
  id: number;
  appId: string;
  messageId: number;
  deviceId: string;
  activityId: string | null;
  attempts: number;
  nextAttemptAt: number;
  /** The message kind (notification, la_start, la_update, la_end), for metrics. */
  kind: string;
  content: string;
  /** The body the message's first delivery recorded (`messages.sent_body`), if any yet. */
  sentBody: string | null;
  /** Null when the device was removed. */
  platform: 'ios' | 'android' | 'web' | null;
  /** The device's end user (for webhook events). */
  endUserId: string | null;
  /** The ledger token the delivery goes to (null: not known yet, or removed with its device). */
  tokenId: number | null;
  tokenKind: 'apns_device' | 'apns_push_to_start' | 'apns_activity' | 'fcm_registration' | 'webpush_subscription' | null;
  tokenValue: string | null;
  /** A web subscription's sealed keys (tokens.secret_sealed). */
  tokenSecret: string | null;
  tokenDeviceId: string | null;
  /** The token's activity (an activity's own update token), for device.token_invalidated. */
  tokenActivityId: string | null;
  /** The token's APNs environment; null: the app's default. */
  environment: 'production' | 'sandbox' | null;
  tokenState: 'active' | 'invalid' | null;
  invalidReason: string | null;
}

/** An app's delivery channels as the worker sees them for one batch. */
export interface AppChannels {
  apns?: ApnsCredentials;
  fcm?: FcmCredentials;
  /** The sealed columns, so that a pause applies only to the credentials that failed. */
  apnsSealed: string | null;
  fcmSealed: string | null;
  apnsPausedReason: string | null;
  fcmPausedReason: string | null;
  /** Absent: the app has no Web Push. */
  webPush?: WebPushChannel;
}

export type Route =
  /** `environment`: the APNs host the token was sent to (for a BadDeviceToken's explanation). */
  | { action: 'send'; transport: TransportName; request: PushRequest; environment?: 'production' | 'sandbox' }
  /** An iOS update or end before the activity's own push token is known: held until it is. */
  | { action: 'hold' }
  /** The provider channel of the app is paused: parked until its credentials change. */
  | { action: 'park'; provider: 'apns' | 'fcm' }
  | { action: 'drop'; reason: string }
  | { action: 'fail'; reason: string };

/** An app's Web Push channel as the router needs it (app-channels.ts opens it). */
export interface WebPushChannel {
  keys: VapidKeys;
  subject: string;
  defaultUrl: string;
  /** A web device's subscription keys, from its token's sealed secret (web-push/web-subscription.ts). */
  openSubscription(endpoint: string, sealed: string): { p256dh: Buffer; auth: Buffer };
}
