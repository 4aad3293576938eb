import { sql } from 'drizzle-orm';
import { bigint, defineTable, id, index, integer, primaryKey, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/**
 * What is to be delivered, once per event: a notification's rendered text, a live activity
 * event (start, update, end) with its data, or a WidgetKit reload of widgets or controls. Deliveries (one per device) point at it, so a send to
 * 100,000 devices stores its content once.
 */
export const { sqlite: messages, pg: messagesPg } = defineTable(
  'messages',
  {
    id: id(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    kind: text(['notification', 'la_start', 'la_update', 'la_end', 'widgets_reload', 'controls_reload']).notNull(),
    /** Not indexed: nothing looks messages up by activity, and the index cost a random page write per update. */
    activityId: text(),
    /** JSON of the provider-neutral content (delivery/message-content.ts). */
    content: text().notNull(),
    /** The content's template (a notification's or an activity's), for the console's filter; null on messages queued before it existed. */
    templateSlug: text(),
    /**
     * The request body its first delivery sent. Deliveries that sent the same body (a fan-out's
     * alerts) leave it out of their `sent_payload`, so a send to 100,000 devices stores it once.
     */
    sentBody: text(),
    createdAt: time().notNull(),
  },
  // One entry per message (not per delivery), and new entries of one app and template land next
  // to each other, so the write stays cheap.
  (t) => [index('messages_app_template').on(t.appId, t.templateSlug)],
);

/** The durable outbox: one row per device and message, drained by the delivery workers. */
export const { sqlite: deliveries, pg: deliveriesPg } = defineTable(
  'deliveries',
  {
    id: id(),
    appId: text().notNull(),
    messageId: bigint().notNull().references(() => messages.id, { onDelete: 'cascade' }),
    deviceId: text().notNull(),
    activityId: text(),
    /** The ledger token the delivery goes to; null until known (an iOS update held for its activity token). */
    tokenId: bigint(),
    /**
     * pending: due at nextAttemptAt; held: waits for something (an iOS activity token, a paused
     * or down channel); sending: claimed by a worker; delivered, failed, dropped, superseded (a
     * newer update or the end of its activity was queued for the device before it went): finished.
     */
    status: text(['pending', 'held', 'sending', 'delivered', 'failed', 'dropped', 'superseded']).notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: time().notNull(),
    provider: text(),
    providerId: text(),
    reason: text(),
    /**
     * What a `held` delivery waits for (null otherwise): token: its iOS activity's own push token;
     * apns_paused / fcm_paused: its app's channel, paused until the credentials change; apns_down /
     * fcm_down: an endpoint that stopped answering (`hold_endpoint` names it); quiet: the device's
     * quiet hours, until `next_attempt_at` (holds/quiet-holds.ts). The reason stays
     * a text for people; code tells holds apart by this.
     */
    holdKind: text(['token', 'apns_paused', 'fcm_paused', 'webpush_paused', 'apns_down', 'fcm_down', 'webpush_down', 'quiet']),
    /**
     * The endpoint a delivery held apns_down / fcm_down waits for (the origin of its provider URL,
     * `https://api.push.apple.com`); null otherwise. Releases and counts per endpoint read this, never the reason.
     */
    holdEndpoint: text(),
    /** The exact request body sent (simulator and last attempt), for the console. */
    sentPayload: text(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
    /** The instance (coordination/postgres/cluster.tables.ts) whose claim a `sending` row is under. */
    claimedBy: text().pgOnly(),
  },
  (t) => [
    index('deliveries_due').on(t.status, t.nextAttemptAt),
    index('deliveries_claimed').on(t.claimedBy).where(sql`status = 'sending'`),
    index('deliveries_app').on(t.appId, t.id),
    index('deliveries_activity').on(t.activityId),
    // Retention deletes messages no delivery refers to, and each delete checks the cascade: without
    // this, both walk the whole outbox once per message (quadratic). A send's deliveries share one
    // message id, and ids grow, so entries are appended at the index's end.
    index('deliveries_message').on(t.messageId),
    // Latest wins and token release look up an activity's held deliveries at every update: without
    // this, that lookup walks every delivery the activity ever had. Notifications held for quiet
    // hours or a down endpoint (no activity) stay out of it: a send held whole writes no entry here.
    index('deliveries_held_activity').on(t.activityId).where(sql`status = 'held' AND activity_id IS NOT NULL`),
    // Superseding looks up an activity's pending updates at every update; fan-outs of
    // notifications (no activity) stay out of it.
    index('deliveries_pending_activity').on(t.activityId).where(sql`status = 'pending' AND activity_id IS NOT NULL`),
    // The console's filters. By device (and end user): notifications through the device's tokens
    // (an integer key: a fan-out writes it at random places, as a device id would, but at a fifth
    // of the cost); Live Activity deliveries through their activities (deliveries_activity), so an
    // update, written at random places already there, writes no second random index page (each
    // such page is read again and written at every commit: ~10 µs of the request thread per
    // update); plus the few deliveries still waiting for a token. By template: through its
    // messages (deliveries_message above).
    index('deliveries_notification_token').on(t.tokenId).where(sql`activity_id IS NULL`),
    index('deliveries_tokenless_device').on(t.deviceId).where(sql`token_id IS NULL`),
    // Quiet hours: the release reads only the held rows whose window ended (holds/quiet-holds.ts),
    // not every held row (a down endpoint's may be many) each second.
    index('deliveries_quiet_due').on(t.nextAttemptAt).where(sql`status = 'held' AND hold_kind = 'quiet'`),
  ],
);

/**
 * Attempts of a delivery that were answered with a retry: the delivery row itself holds the last
 * attempt, so a delivery that went through at once (nearly all) writes nothing here.
 */
export const { sqlite: deliveryAttempts, pg: deliveryAttemptsPg } = defineTable(
  'delivery_attempts',
  {
    deliveryId: bigint().notNull().references(() => deliveries.id, { onDelete: 'cascade' }),
    attempt: integer().notNull(),
    at: time().notNull(),
    provider: text(),
    providerId: text(),
    reason: text(),
  },
  (t) => [primaryKey(t.deliveryId, t.attempt)],
);
