import type { FailedDeliveryFacts } from '../../webhooks/delivery-events';
import type { HoldKind } from '../holds/hold-kind';

/** One delivery row as queueing writes it. */
export interface NewDelivery {
  deviceId: string;
  tokenId: number | null;
  status: 'pending' | 'held' | 'failed' | 'dropped';
  /** Set when held (hold-kind.ts). */
  holdKind: HoldKind | null;
  reason: string | null;
  /** When it is due (`next_attempt_at`; a quiet-hours hold: when it is released); absent: now. */
  dueAt?: number;
}

/** One message of several queued at once, with its deliveries. */
export interface NewMessage {
  kind: string;
  activityId: string | null;
  content: string;
  templateSlug: string | null;
  /** The APNs body, when the request rendered it (`messages.sent_body`): the worker sends it as it is. */
  sentBody: string | null;
  deliveries: readonly NewDelivery[];
}

/** A delivery superseded by a newer event, for the metrics. */
export interface Superseded {
  appId: string;
  provider: string | null;
}

/** A delivery that failed at once, as its delivery.failed event tells it (no attempt was made). */
export type FailedAtEnqueue = Omit<FailedDeliveryFacts, 'attempts'>;
