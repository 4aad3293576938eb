import type { WebhookEventInput } from './delivery-events';
import type { WebhookEventType } from './webhooks.events';

/** The webhook-events repository, one implementation for both databases: src/db/repositories/webhook-events.ts. */
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
  /**
   * Writes events built by their module (delivery.failed, device.token_invalidated: delivery-events.ts),
   * each to the enabled endpoints of its app that listen to its type. Looks no further when no
   * endpoint is enabled at all (the delivery worker's hot path).
   */
  emitAll(events: readonly WebhookEventInput[], now: number): Promise<void>;
}
