import { bigint, boolean, defineTable, id, index, integer, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/**
 * Broadcast Live Activities (issue 31): one activity shown on every device subscribed to an APNs
 * channel (iOS 18+) or an FCM topic (Android). Apple's channel id is null while it is being made.
 */
export const { sqlite: broadcasts, pg: broadcastsPg } = defineTable(
  'broadcasts',
  {
    id: text().primaryKey(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    templateSlug: text().notNull(),
    /** JSON. */
    attributes: text().notNull(),
    /** JSON of the latest contentState. */
    contentState: text().notNull(),
    /** Apple's message-storage-policy: 0 No Message Stored, 1 Most Recent Message Stored. */
    storagePolicy: integer().notNull(),
    state: text(['Active', 'Ended']).notNull(),
    /** The APNs environment of the channel; `simulator` for an app without APNs credentials. */
    environment: text(['production', 'sandbox', 'simulator']).notNull(),
    channelId: text(),
    /** creating (at Apple), open, deleted (after dismissal), failed (Apple refused: channelReason says why). */
    channelState: text(['creating', 'open', 'deleted', 'failed']).notNull(),
    channelReason: text(),
    /** The FCM topic Android apps subscribe to. */
    topic: text().notNull(),
    /** The last APNs `aps.timestamp` sent, Unix seconds: each event's is strictly greater. */
    lastTimestamp: bigint().notNull(),
    updatesSent: bigint().notNull().default(0),
    subscribersStarted: bigint().notNull().default(0),
    /** Why its sends wait (FeatureNotEnabled), null when they do not. */
    heldReason: text(),
    /** The sliding hour of `priority: "auto"` (issue 47): times (ms, JSON array) of the priority-10 updates queued within it. */
    priority10Sent: text(),
    endReason: text(),
    startedAt: time().notNull(),
    endedAt: time(),
  },
  (t) => [index('broadcasts_app').on(t.appId, t.startedAt), index('broadcasts_channels').on(t.appId, t.environment, t.channelState)],
);

/**
 * The durable outbox of broadcasts: one row per step at the providers (make the channel, send an
 * update or end to the channel and the topic, delete the channel), done in id order per broadcast.
 */
export const { sqlite: broadcastOps, pg: broadcastOpsPg } = defineTable(
  'broadcast_ops',
  {
    id: id(),
    broadcastId: text().notNull().references(() => broadcasts.id, { onDelete: 'cascade' }),
    appId: text().notNull(),
    kind: text(['create_channel', 'update', 'end', 'delete_channel']).notNull(),
    /** JSON of the LiveActivityContent of an update or end; null for channel steps. */
    content: text(),
    /** pending (due at nextAttemptAt), done, failed, superseded (a newer update was queued first). */
    status: text(['pending', 'done', 'failed', 'superseded']).notNull(),
    /** The APNs half of an update or end went (or had nothing to go to): a retry sends only the rest. */
    apnsDone: boolean().notNull().default(false),
    fcmDone: boolean().notNull().default(false),
    attempts: integer().notNull().default(0),
    nextAttemptAt: time().notNull(),
    reason: text(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
    /** The instance working on a pending step (taken over when its lease lapses). */
    claimedBy: text().pgOnly(),
  },
  (t) => [index('broadcast_ops_due').on(t.status, t.nextAttemptAt), index('broadcast_ops_broadcast').on(t.broadcastId, t.status)],
);
