import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * The whole database. Times are integer milliseconds since the epoch (UTC); JSON columns are text.
 * Secrets are stored sealed (AES-256-GCM, see lib/secrets.ts); the App Secret also as a SHA-256 hash
 * so that authenticating a request needs no decryption.
 */

/** Key-value settings of the installation (e.g. the generated admin token's hash). */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const apps = sqliteTable('apps', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  appSecretHash: text('app_secret_hash').notNull(),
  appSecretSealed: text('app_secret_sealed').notNull(),
  signingSecretSealed: text('signing_secret_sealed').notNull(),
  /** Sealed JSON of ApnsCredentials (lib/../delivery), null when the app has none. */
  apnsSealed: text('apns_sealed'),
  /** Sealed JSON of FcmCredentials, null when the app has none. */
  fcmSealed: text('fcm_sealed'),
  /** Set when a provider refused the credentials: delivery on that channel waits for new ones. */
  apnsPausedReason: text('apns_paused_reason'),
  fcmPausedReason: text('fcm_paused_reason'),
  /** `config` when declared in the TOML file, `api` when made through the admin API or console. */
  source: text('source', { enum: ['config', 'api'] }).notNull(),
  /** The IANA zone a `sendAtLocal` uses for the app's devices that reported none; null: UTC. */
  defaultTimeZone: text('default_time_zone'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export const endUsers = sqliteTable(
  'end_users',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    tester: integer('tester', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.id] })],
);

/**
 * An end user's tags (issue 38): one row per key, set through `PUT/PATCH …/users/{endUserId}`; a
 * send's `audience` matches them. Kept apart from `end_users` so a user may have tags before any
 * device; erasing the end user deletes them.
 */
export const endUserTags = sqliteTable(
  'end_user_tags',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text('end_user_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  // The primary key answers an audience's per-device lookup (app, user, key); the second index the
  // console's "who has plan=gold" and counts by value.
  (t) => [primaryKey({ columns: [t.appId, t.endUserId, t.key] }), index('end_user_tags_app_key_value').on(t.appId, t.key, t.value)],
);

export const devices = sqliteTable(
  'devices',
  {
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text('end_user_id').notNull(),
    platform: text('platform', { enum: ['ios', 'android'] }).notNull(),
    /**
     * The token the device registered with: the row's identity (one device per app, platform and
     * token). Whether it is still valid, and every other token of the device, is in `tokens`.
     */
    token: text('token').notNull(),
    /** The APNs environment the device declared; null: the app's default (its APNs `environment`). */
    environment: text('environment', { enum: ['production', 'sandbox'] }),
    /** The OS version the device registered (`18.2`), if it did: broadcasts start only on iOS 18+. */
    osVersion: text('os_version'),
    /** The device's BCP 47 language tag (`de-AT`), canonical case, if it reported one: a localized template's text is chosen by it. */
    locale: text('locale'),
    /** The device's IANA time zone (`Europe/Vienna`), if it reported one: a `sendAtLocal` reaches it at that wall time there. */
    timeZone: text('time_zone'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('devices_app_platform_token').on(t.appId, t.platform, t.token),
    index('devices_app_user').on(t.appId, t.endUserId),
  ],
);

export const activities = sqliteTable(
  'activities',
  {
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text('end_user_id').notNull(),
    templateSlug: text('template_slug').notNull(),
    platform: text('platform', { enum: ['ios', 'android'] }).notNull(),
    state: text('state', { enum: ['Active', 'Ended'] }).notNull(),
    attributes: text('attributes').notNull(),
    contentState: text('content_state').notNull(),
    /**
     * The APNs `timestamp` (Unix seconds) of the activity's last queued event. The next one gets
     * max(now in seconds, this + 1), so events of one activity never tie even within one second.
     */
    lastTimestamp: integer('last_timestamp').notNull().default(0),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    endReason: text('end_reason', { enum: ['api', 'quota', 'expired'] }),
  },
  (t) => [
    index('activities_app_started').on(t.appId, t.startedAt, t.id),
    index('activities_app_state').on(t.appId, t.state),
    // The console's delivery search by end user or device: their activities' deliveries.
    index('activities_app_user').on(t.appId, t.endUserId),
    // The scheduler's scans (iOS expiry, quota) look only at Active activities.
    index('activities_active_started').on(t.startedAt).where(sql`state = 'Active'`),
  ],
);

/**
 * The token ledger: every token Islet knows, with the device that owns it and whether a provider
 * still takes it. Kinds: `apns_device` and `fcm_registration` (the device's alert token, one per
 * device row: its registration token), `apns_push_to_start` (one active per device; a value belongs
 * to one device), `apns_activity` (an activity's update token on one device). Deliveries name the
 * token they use (`deliveries.token_id`), so a provider's refusal invalidates exactly that token.
 */
export const tokens = sqliteTable(
  'tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['apns_device', 'apns_push_to_start', 'apns_activity', 'fcm_registration'] }).notNull(),
    value: text('value').notNull(),
    deviceId: text('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    /** apns_activity only. */
    activityId: text('activity_id').references(() => activities.id, { onDelete: 'cascade' }),
    /** apns_push_to_start only: the app-defined ActivityAttributes type the token starts (issue 39); null: IsletActivityAttributes. */
    attributesType: text('attributes_type'),
    /** APNs host the token belongs to; null: the app's default. Always null for FCM. */
    environment: text('environment', { enum: ['production', 'sandbox'] }),
    state: text('state', { enum: ['active', 'invalid'] }).notNull(),
    invalidReason: text('invalid_reason'),
    invalidatedAt: integer('invalidated_at'),
    /** When the device last reported the token: a 410 older than this is stale (APNs 410 `timestamp`). */
    reportedAt: integer('reported_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('tokens_value').on(t.appId, t.kind, t.value).where(sql`kind <> 'apns_activity'`),
    uniqueIndex('tokens_activity_device').on(t.activityId, t.deviceId).where(sql`kind = 'apns_activity'`),
    index('tokens_device').on(t.deviceId, t.kind),
  ],
);

/**
 * One row per device an activity was started on: updates and the end go to each live instance
 * (iOS: at the instance's own update token in `tokens`), and the iOS 8-hour limit ends each iOS
 * instance on its own.
 */
export const activityInstances = sqliteTable(
  'activity_instances',
  {
    activityId: text('activity_id')
      .notNull()
      .references(() => activities.id, { onDelete: 'cascade' }),
    deviceId: text('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    platform: text('platform', { enum: ['ios', 'android'] }).notNull(),
    startedAt: integer('started_at').notNull(),
    /** Null while the instance is live. */
    endedAt: integer('ended_at'),
  },
  (t) => [
    primaryKey({ columns: [t.activityId, t.deviceId] }),
    // The console's delivery search by device: the activities that ran on it (written once per start, not per update).
    index('activity_instances_device').on(t.deviceId),
    // The iOS expiry scan looks only at live iOS instances.
    index('activity_instances_live_ios').on(t.startedAt).where(sql`ended_at IS NULL AND platform = 'ios'`),
  ],
);

/**
 * What is to be delivered, once per event: a notification's rendered text, or a live activity
 * event (start, update, end) with its data. Deliveries (one per device) point at it, so a send to
 * 100,000 devices stores its content once.
 */
export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['notification', 'la_start', 'la_update', 'la_end'] }).notNull(),
    /** Not indexed: nothing looks messages up by activity, and the index cost a random page write per update. */
    activityId: text('activity_id'),
    /** JSON of the provider-neutral content (delivery/message-content.ts). */
    content: text('content').notNull(),
    /** The content's template (a notification's or an activity's), for the console's filter; null on messages queued before it existed. */
    templateSlug: text('template_slug'),
    /**
     * The request body its first delivery sent. Deliveries that sent the same body (a fan-out's
     * alerts) leave it out of their `sent_payload`, so a send to 100,000 devices stores it once.
     */
    sentBody: text('sent_body'),
    createdAt: integer('created_at').notNull(),
  },
  // One entry per message (not per delivery), and new entries of one app and template land next
  // to each other, so the write stays cheap.
  (t) => [index('messages_app_template').on(t.appId, t.templateSlug)],
);

/** The durable outbox: one row per device and message, drained by the delivery workers. */
export const deliveries = sqliteTable(
  'deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appId: text('app_id').notNull(),
    messageId: integer('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').notNull(),
    activityId: text('activity_id'),
    /** The ledger token the delivery goes to; null until known (an iOS update held for its activity token). */
    tokenId: integer('token_id'),
    /**
     * pending: due at nextAttemptAt; held: waits for something (an iOS activity token, a paused
     * or down channel); sending: claimed by a worker; delivered, failed, dropped, superseded (a
     * newer update or the end of its activity was queued for the device before it went): finished.
     */
    status: text('status', { enum: ['pending', 'held', 'sending', 'delivered', 'failed', 'dropped', 'superseded'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    provider: text('provider'),
    providerId: text('provider_id'),
    reason: text('reason'),
    /**
     * What a `held` delivery waits for (null otherwise): token: its iOS activity's own push token;
     * apns_paused / fcm_paused: its app's channel, paused until the credentials change; apns_down /
     * fcm_down: an endpoint that stopped answering (`hold_endpoint` names it). The reason stays
     * a text for people; code tells holds apart by this.
     */
    holdKind: text('hold_kind', { enum: ['token', 'apns_paused', 'fcm_paused', 'apns_down', 'fcm_down'] }),
    /**
     * The endpoint a delivery held apns_down / fcm_down waits for (the origin of its provider URL,
     * `https://api.push.apple.com`); null otherwise. Releases and counts per endpoint read this, never the reason.
     */
    holdEndpoint: text('hold_endpoint'),
    /** The exact request body sent (simulator and last attempt), for the console. */
    sentPayload: text('sent_payload'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('deliveries_due').on(t.status, t.nextAttemptAt),
    index('deliveries_app').on(t.appId, t.id),
    index('deliveries_activity').on(t.activityId),
    // Retention deletes messages no delivery refers to, and each delete checks the cascade: without
    // this, both walk the whole outbox once per message (quadratic). A send's deliveries share one
    // message id, and ids grow, so entries are appended at the index's end.
    index('deliveries_message').on(t.messageId),
    // Latest wins and token release look up an activity's held deliveries at every update: without
    // this, that lookup walks every delivery the activity ever had.
    index('deliveries_held_activity').on(t.activityId).where(sql`status = 'held'`),
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
  ],
);

/**
 * Attempts of a delivery that were answered with a retry: the delivery row itself holds the last
 * attempt, so a delivery that went through at once (nearly all) writes nothing here.
 */
export const deliveryAttempts = sqliteTable(
  'delivery_attempts',
  {
    deliveryId: integer('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    provider: text('provider'),
    providerId: text('provider_id'),
    reason: text('reason'),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);

export const releases = sqliteTable(
  'releases',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    status: text('status', { enum: ['Draft', 'Testing', 'Live', 'Archived'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.version] }),
    uniqueIndex('releases_one_live').on(t.appId).where(sql`status = 'Live'`),
  ],
);

export const notificationTemplates = sqliteTable(
  'notification_templates',
  {
    appId: text('app_id').notNull(),
    version: integer('version').notNull(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** JSON array of placeholder names found in title and body. */
    placeholders: text('placeholders').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /**
     * JSON of the template's optional platform features (notifications/template-options.ts:
     * subtitle, data, sound, badge, image, …); null when it has none, as every template made before
     * they existed.
     */
    options: text('options'),
    /**
     * JSON of the template's texts per BCP 47 tag (notifications/localizations.ts:
     * `{"de": {"title": …}}`, canonical tags); null when it has none.
     */
    localizations: text('localizations'),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.version, t.slug] }),
    foreignKey({ columns: [t.appId, t.version], foreignColumns: [releases.appId, releases.version] }).onDelete('cascade'),
  ],
);

/**
 * The public id of a sent notification (`msg_…`, what the send answers and the device receives),
 * for its message row: the message status endpoint reads the message's deliveries through it.
 * Removed with its message (retention).
 */
export const notificationMessages = sqliteTable(
  'notification_messages',
  {
    publicId: text('public_id').primaryKey(),
    appId: text('app_id').notNull(),
    messageId: integer('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
  },
  (t) => [
    // Deleting a message checks the cascade through this index instead of a scan.
    uniqueIndex('notification_messages_message').on(t.messageId),
    // The app's messages newest first (message ids grow), and their total, read from the index alone.
    index('notification_messages_app').on(t.appId, t.messageId),
  ],
);

/**
 * A device reported that it opened a notification: once per device and message. Keeps the device
 * id only (no end user), and outlives the device, as its deliveries do: counts stay when a device
 * or an end user is deleted; retention removes opens with their message.
 */
export const notificationOpens = sqliteTable(
  'notification_opens',
  {
    messageId: integer('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').notNull(),
    openedAt: integer('opened_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.deviceId] })],
);

/**
 * The further `messages` rows of a localized send: one per localization used, each with its own
 * rendered text, all counted under the public id of the send's first message (`main_message_id`,
 * the one notification_messages names). A send without localizations has none.
 */
export const notificationMessageVariants = sqliteTable(
  'notification_message_variants',
  {
    messageId: integer('message_id')
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    mainMessageId: integer('main_message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
  },
  (t) => [index('notification_message_variants_main').on(t.mainMessageId)],
);

/**
 * A notification send waiting for its time (`sendAt`, `sendAtLocal`): one row per UTC instant it
 * goes out at (a `sendAtLocal` has one per group of zones whose wall time falls at the same
 * instant). The due job reads only rows due now, through `scheduled_sends_due`; claiming a row and
 * queueing its deliveries is one transaction, so it goes out once.
 */
export const scheduledSends = sqliteTable(
  'scheduled_sends',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The message's public id (`msg_…`), shared by every row of one send. */
    publicId: text('public_id').notNull(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    dueAt: integer('due_at').notNull(),
    /** JSON array of the IANA zones this row reaches (a device's own zone, else the app's default); null: every device (`sendAt`). */
    zones: text('zones'),
    /** waiting; sent (its deliveries are queued); cancelled; expired (the server came back after its ttlSeconds); failed (it could not be rendered when due). */
    status: text('status', { enum: ['waiting', 'sent', 'cancelled', 'expired', 'failed'] }).notNull(),
    /** JSON of the prepared send: the template as it was at scheduling time, the send's variables, additions and audience. */
    send: text('send').notNull(),
    /** Deliveries queued when it went, or the devices it would have reached when cancelled; null while waiting. */
    devices: integer('devices'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('scheduled_sends_due').on(t.status, t.dueAt), index('scheduled_sends_public').on(t.publicId)],
);

/**
 * Who changed what through the admin API, the console or the command line. Kept apart from the
 * app (no foreign key): deleting an app keeps the record of who deleted it. Never holds a secret.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    /** `admin-token:<8 hex of its SHA-256>`, `console:<8 hex of the session id's SHA-256>` or `cli`. */
    actor: text('actor').notNull(),
    /** The client's address (`local` from the command line). */
    address: text('address').notNull(),
    /** e.g. `app.create`, `secret.rotate`, `apns.set`, `release.status`, `admin-token.reset`. */
    action: text('action').notNull(),
    appId: text('app_id'),
    /** What was changed, e.g. `apps/demo/releases/3`. */
    target: text('target').notNull(),
    /** JSON of the change's non-secret fields. */
    summary: text('summary').notNull(),
  },
  (t) => [index('audit_log_at').on(t.at), index('audit_log_app').on(t.appId, t.id)],
);

/**
 * Idempotency-Key of public mutating requests: one row per app and key, kept 24 h (the retention
 * job prunes older ones). `running` while the first request is being handled; `done` with the
 * answer that a repeat replays. 5xx answers are not kept (the row is released).
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['running', 'done'] }).notNull(),
    status: integer('status'),
    contentType: text('content_type'),
    body: text('body'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.key] }), index('idempotency_keys_created').on(t.createdAt)],
);

/** Where an app's events are posted (Standard Webhooks). */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description'),
    /** JSON array of event types; null: every event. */
    events: text('events'),
    /** The sealed `whsec_` secret. */
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last rotation, sealed: attempts are signed with both until `previousSecretUntil`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretUntil: integer('previous_secret_until'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /** Why it was disabled by Islet (failing for 5 days); null when enabled or disabled by hand. */
    disabledReason: text('disabled_reason'),
    /** Since when every attempt failed; null after a success. */
    failingSince: integer('failing_since'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhook_endpoints_app').on(t.appId)],
);

/** One event, written in the transaction of its cause: the exact body every endpoint gets. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    /** `msg_…`, the `webhook-id` header: the same on every retry, so receivers can deduplicate. */
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    body: text('body').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('webhook_events_created').on(t.createdAt), index('webhook_events_app_type').on(t.appId, t.type, t.createdAt)],
);

/** The webhook outbox: one row per event and endpoint, sent by the dispatcher with retries. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** pending: due at nextAttemptAt; sending: being posted; delivered; failed: out of retries or endpoint disabled. */
    status: text('status', { enum: ['pending', 'sending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhook_deliveries_due').on(t.status, t.nextAttemptAt), index('webhook_deliveries_endpoint').on(t.endpointId)],
);

/** Every post to an endpoint and what came back, for the admin API and the console. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** 1 for the first post of the event to this endpoint. */
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    /** The receiver's HTTP status; null when none came (refused, timed out, policy). */
    responseStatus: integer('response_status'),
    /** What went wrong, when it did. */
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('webhook_attempts_endpoint').on(t.endpointId, t.id)],
);

/**
 * Activity streams: a key of the app's choosing whose PUT says "this is the state now"; Islet
 * starts, updates, does nothing or starts over (before iOS's 8-hour limit).
 */
export const activityStreams = sqliteTable(
  'activity_streams',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    templateSlug: text('template_slug').notNull(),
    /** JSON, as started: a change of template, attributes or targets starts over. */
    attributes: text('attributes').notNull(),
    /** JSON array of end user ids; null: every connected end user. */
    targetUsers: text('target_users'),
    /** JSON of the last contentState put. */
    contentState: text('content_state').notNull(),
    /** JSON array of the ids of the activities started for the stream's current run. */
    activityIds: text('activity_ids').notNull(),
    startedAt: integer('started_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.key] })],
);

/**
 * Broadcast Live Activities (issue 31): one activity shown on every device subscribed to an APNs
 * channel (iOS 18+) or an FCM topic (Android). Apple's channel id is null while it is being made.
 */
export const broadcasts = sqliteTable(
  'broadcasts',
  {
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    templateSlug: text('template_slug').notNull(),
    /** JSON. */
    attributes: text('attributes').notNull(),
    /** JSON of the latest contentState. */
    contentState: text('content_state').notNull(),
    /** Apple's message-storage-policy: 0 No Message Stored, 1 Most Recent Message Stored. */
    storagePolicy: integer('storage_policy').notNull(),
    state: text('state', { enum: ['Active', 'Ended'] }).notNull(),
    /** The APNs environment of the channel; `simulator` for an app without APNs credentials. */
    environment: text('environment', { enum: ['production', 'sandbox', 'simulator'] }).notNull(),
    channelId: text('channel_id'),
    /** creating (at Apple), open, deleted (after dismissal), failed (Apple refused: channelReason says why). */
    channelState: text('channel_state', { enum: ['creating', 'open', 'deleted', 'failed'] }).notNull(),
    channelReason: text('channel_reason'),
    /** The FCM topic Android apps subscribe to. */
    topic: text('topic').notNull(),
    /** The last APNs `aps.timestamp` sent, Unix seconds: each event's is strictly greater. */
    lastTimestamp: integer('last_timestamp').notNull(),
    updatesSent: integer('updates_sent').notNull().default(0),
    subscribersStarted: integer('subscribers_started').notNull().default(0),
    /** Why its sends wait (FeatureNotEnabled), null when they do not. */
    heldReason: text('held_reason'),
    endReason: text('end_reason'),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
  },
  (t) => [index('broadcasts_app').on(t.appId, t.startedAt), index('broadcasts_channels').on(t.appId, t.environment, t.channelState)],
);

/**
 * The durable outbox of broadcasts: one row per step at the providers (make the channel, send an
 * update or end to the channel and the topic, delete the channel), done in id order per broadcast.
 */
export const broadcastOps = sqliteTable(
  'broadcast_ops',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    broadcastId: text('broadcast_id')
      .notNull()
      .references(() => broadcasts.id, { onDelete: 'cascade' }),
    appId: text('app_id').notNull(),
    kind: text('kind', { enum: ['create_channel', 'update', 'end', 'delete_channel'] }).notNull(),
    /** JSON of the LiveActivityContent of an update or end; null for channel steps. */
    content: text('content'),
    /** pending (due at nextAttemptAt), done, failed, superseded (a newer update was queued first). */
    status: text('status', { enum: ['pending', 'done', 'failed', 'superseded'] }).notNull(),
    /** The APNs half of an update or end went (or had nothing to go to): a retry sends only the rest. */
    apnsDone: integer('apns_done', { mode: 'boolean' }).notNull().default(false),
    fcmDone: integer('fcm_done', { mode: 'boolean' }).notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    reason: text('reason'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('broadcast_ops_due').on(t.status, t.nextAttemptAt), index('broadcast_ops_broadcast').on(t.broadcastId, t.status)],
);

/**
 * App-defined Live Activity templates (issue 39): the app's own ActivityAttributes type and its
 * typed fields. Slugs share the namespace of the eight built-ins, which are not stored.
 */
export const liveActivityTemplates = sqliteTable(
  'live_activity_templates',
  {
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    /** The Swift ActivityAttributes type: the APNs `attributes-type` of a start. */
    attributesType: text('attributes_type').notNull(),
    /** JSON of the attributes fields: name -> { type, required, list }. */
    attributes: text('attributes').notNull(),
    /** JSON of the contentState fields. */
    contentState: text('content_state').notNull(),
    /** `config` when declared in the TOML file, `api` when made through the admin API or console. */
    source: text('source', { enum: ['config', 'api'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.slug] })],
);
