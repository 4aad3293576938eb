import { shownId } from '../../lib/anonymous';
import type { WebhookEventType } from './webhooks.events';

/**
 * An event decided outside a transaction (the delivery worker's outcomes, written on the outbox
 * thread's connection), written later with its cause: `tx.webhookEvents.emitAll` stores it for
 * every enabled endpoint of the app that listens to its type.
 */
export interface WebhookEventInput {
  appId: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
}

/** What `delivery.failed` tells of a delivery (the worker has it from its claim, queueing from its row). */
export interface FailedDeliveryFacts {
  id: number;
  appId: string;
  /** The message kind: notification, la_start, la_update, la_end. */
  kind: string;
  activityId: string | null;
  deviceId: string;
  endUserId: string | null;
  platform: string | null;
  reason: string | null;
  attempts: number;
}

/** `delivery.failed`: a push was given up on. */
export function deliveryFailed(d: FailedDeliveryFacts): WebhookEventInput {
  return {
    appId: d.appId,
    type: 'delivery.failed',
    data: { deliveryId: d.id, kind: d.kind, activityId: d.activityId, deviceId: shownId(d.deviceId), endUserId: shownId(d.endUserId), platform: d.platform, reason: d.reason, attempts: d.attempts },
  };
}

/** What `device.token_invalidated` tells of a token a provider refused for good. */
export interface InvalidatedTokenFacts {
  appId: string;
  tokenKind: string;
  deviceId: string;
  activityId: string | null;
  endUserId: string | null;
  reason: string;
}

/** `device.token_invalidated`: written only if the refusal did invalidate the token (a newer report wins). */
export function tokenInvalidated(t: InvalidatedTokenFacts): WebhookEventInput {
  return {
    appId: t.appId,
    type: 'device.token_invalidated',
    data: { deviceId: t.deviceId, endUserId: shownId(t.endUserId), tokenKind: t.tokenKind, activityId: t.activityId, reason: t.reason },
  };
}
