import { sql } from 'drizzle-orm';
import { boolean, defineTable, id, index, integer, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/** Where an app's events are posted (Standard Webhooks). */
export const { sqlite: webhookEndpoints, pg: webhookEndpointsPg } = defineTable(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    url: text().notNull(),
    description: text(),
    /** JSON array of event types; null: every event. */
    events: text(),
    /** The sealed `whsec_` secret. */
    secretSealed: text().notNull(),
    /** The secret before the last rotation, sealed: attempts are signed with both until `previousSecretUntil`. */
    previousSecretSealed: text(),
    previousSecretUntil: time(),
    enabled: boolean().notNull().default(true),
    /** Why it was disabled by Islet (failing for 5 days); null when enabled or disabled by hand. */
    disabledReason: text(),
    /** Since when every attempt failed; null after a success. */
    failingSince: time(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
  },
  (t) => [index('webhook_endpoints_app').on(t.appId)],
);

/** One event, written in the transaction of its cause: the exact body every endpoint gets. */
export const { sqlite: webhookEvents, pg: webhookEventsPg } = defineTable(
  'webhook_events',
  {
    /** `msg_…`, the `webhook-id` header: the same on every retry, so receivers can deduplicate. */
    id: text().primaryKey(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    type: text().notNull(),
    body: text().notNull(),
    createdAt: time().notNull(),
  },
  (t) => [index('webhook_events_created').on(t.createdAt), index('webhook_events_app_type').on(t.appId, t.type, t.createdAt)],
);

/** The webhook outbox: one row per event and endpoint, sent by the dispatcher with retries. */
export const { sqlite: webhookDeliveries, pg: webhookDeliveriesPg } = defineTable(
  'webhook_deliveries',
  {
    id: id(),
    eventId: text().notNull().references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: text().notNull().references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** pending: due at nextAttemptAt; sending: being posted; delivered; failed: out of retries or endpoint disabled. */
    status: text(['pending', 'sending', 'delivered', 'failed']).notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: time().notNull(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
    /** The instance whose claim a `sending` row is under. */
    claimedBy: text().pgOnly(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint').on(t.endpointId),
    index('webhook_deliveries_claimed').on(t.claimedBy).where(sql`status = 'sending'`),
  ],
);

/** Every post to an endpoint and what came back, for the admin API and the console. */
export const { sqlite: webhookAttempts, pg: webhookAttemptsPg } = defineTable(
  'webhook_attempts',
  {
    id: id(),
    endpointId: text().notNull().references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text().notNull(),
    eventType: text().notNull(),
    /** 1 for the first post of the event to this endpoint. */
    attempt: integer().notNull(),
    at: time().notNull(),
    /** The receiver's HTTP status; null when none came (refused, timed out, policy). */
    responseStatus: integer(),
    /** What went wrong, when it did. */
    error: text(),
    durationMs: integer().notNull(),
  },
  (t) => [index('webhook_attempts_endpoint').on(t.endpointId, t.id)],
);
