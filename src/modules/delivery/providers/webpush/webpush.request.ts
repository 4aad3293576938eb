import type { Urgency } from './webpush.headers';
import type { VapidKeys } from './webpush.vapid';

/** A browser's (or a UnifiedPush distributor's) subscription, its keys decoded. */
export interface WebPushSubscription {
  endpoint: string;
  /** 65-byte uncompressed P-256 point. */
  p256dh: Uint8Array;
  /** 16-byte authentication secret. */
  auth: Uint8Array;
}

/** One push to one subscription, fully decided: the sender only encrypts, signs and sends it. */
export interface WebPushRequest {
  appId: string;
  subscription: WebPushSubscription;
  vapid: { keys: VapidKeys; subject: string };
  /** The Declarative Web Push JSON (web-push.payload.ts), before encryption. */
  payload: string;
  ttlSeconds?: number;
  urgency?: Urgency;
  topic?: string;
}
