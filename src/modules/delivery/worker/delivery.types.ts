import type { WebhookEventInput } from '../../webhooks/delivery-events';
import type { HoldKind } from '../holds/hold-kind';
import type { ClaimedDelivery } from './delivery.routing';

/**
 * What the worker decided for one claimed delivery (outcome-effects.ts), written back in a batch:
 * the repository applies these effects and decides nothing of its own.
 */
export interface DeliveryResult {
  id: number;
  status: 'pending' | 'held' | 'delivered' | 'failed' | 'dropped';
  /** What a held delivery waits for; null unless held. */
  holdKind: HoldKind | null;
  /** The endpoint (its URL's origin) a delivery held apns_down / fcm_down waits for; absent otherwise. */
  holdEndpoint?: string;
  attempts: number;
  nextAttemptAt: number;
  /** Null: keep what the row has. */
  provider: string | null;
  providerId: string | null;
  reason: string | null;
  /** Null: keep what the row has. */
  sentPayload: string | null;
  /** Held for an activity instance's token: becomes pending instead if the token arrived meanwhile. */
  holdFor?: { activityId: string; deviceId: string };
  /** The provider answered with a retry: the attempt is kept in delivery_attempts (the row keeps the last). */
  recordAttempt?: boolean;
  /**
   * Back to wait (pending or held): superseded instead if a newer update or end of its activity was
   * queued for the device meanwhile (latest wins, outbox.ts).
   */
  supersedeIfStale?: boolean;
  /**
   * The provider refused this token (only it: `since` is the APNs 410 timestamp, if any); `event`
   * (device.token_invalidated) is written only if this did invalidate it.
   */
  invalidateToken?: { tokenId: number; reason: string; since?: number; event?: WebhookEventInput };
  /** Webhook events written with the outcome (delivery.failed). */
  events?: WebhookEventInput[];
  /** The first body sent for this message, recorded once on the message (sentPayload then leaves it out where it is the same). */
  messageBody?: { messageId: number; body: string };
  /** The provider refused the app's credentials (only those still stored: `sealed`). */
  pauseChannel?: PausedChannel;
}

/** What a record() did beyond writing the outcomes. */
export interface RecordedOutcomes {
  /** The channels it paused (not those already paused). */
  paused: PausedChannel[];
  /** The updates it superseded instead of putting them back to wait (for islet_deliveries_total). */
  superseded: { appId: string; provider: string | null }[];
}

/** A channel whose credentials the provider refused: paused until they change. */
export interface PausedChannel {
  appId: string;
  provider: 'apns' | 'fcm' | 'webpush';
  reason: string;
  /** Only these stored credentials are paused (not ones changed meanwhile). */
  sealed: string | null;
}
