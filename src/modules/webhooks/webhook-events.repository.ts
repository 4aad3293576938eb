import type { WebhookEventType } from './webhooks.events';

/** A delivery the worker settled, as far as its webhook events need it. */
export interface FailedDelivery {
  id: number;
  status: string;
  reason: string | null;
  attempts: number;
}

/** The webhook-events repository: what every database implements (SQLite's in src/db/sqlite/repositories/webhook-events.ts). */
export interface WebhookEventsRepository {
  /** The enabled endpoints of the app that listen to the type. */
  subscribers(appId: string, type: WebhookEventType): Promise<string[]>;
  /** Writes an event and its deliveries, due now, to the given endpoints (the test event goes to one). Returns its id. */
  writeEvent(appId: string, type: string, data: Record<string, unknown>, endpointIds: readonly string[], now: number): Promise<string>;
  /**
   * Writes one event for every enabled endpoint of the app subscribed to its type; an app without
   * such endpoints writes nothing. Returns the event id (`webhook-id`), or undefined.
   */
  emit(appId: string, type: WebhookEventType, data: Record<string, unknown>, now: number): Promise<string | undefined>;
  /**
   * Whether the app already had an event of this type since `since` (quota events: once a period).
   * Asked in a write, the answer holds until that write commits: another write asking the same
   * waits for it (PostgreSQL: a transaction-level advisory lock; SQLite has one writer).
   */
  hadEventSince(appId: string, type: WebhookEventType, from: number): Promise<boolean>;
  /** Apps with at least one enabled endpoint, and their plans (the quota events look only at these). */
  appsWithEndpoints(): Promise<{ id: string; plan: string }[]>;
  /** `delivery.failed` for deliveries the worker gave up on, and `device.token_invalidated` for tokens a provider refused for good. */
  deliveryOutcomes(results: readonly FailedDelivery[], invalidatedTokenIds: readonly number[], now: number): Promise<void>;
}
