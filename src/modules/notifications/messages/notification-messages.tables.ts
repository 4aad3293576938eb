import { bigint, defineTable, index, primaryKey, text, time, uniqueIndex } from '../../../db/table';
import { messages } from '../../delivery/delivery.tables';

/**
 * The public id of a sent notification (`msg_…`, what the send answers and the device receives),
 * for its message row: the message status endpoint reads the message's deliveries through it.
 * Removed with its message (retention).
 */
export const { sqlite: notificationMessages, pg: notificationMessagesPg } = defineTable(
  'notification_messages',
  {
    publicId: text().primaryKey(),
    appId: text().notNull(),
    messageId: bigint().notNull().references(() => messages.id, { onDelete: 'cascade' }),
    /** When a cancel stopped deliveries of the message (null: never): the message list's `cancelled`, kept apart from reason texts. */
    cancelledAt: time(),
  },
  (t) => [
    // Deleting a message checks the cascade through this index instead of a scan.
    uniqueIndex('notification_messages_message').on(t.messageId),
    // The app's messages newest first (message ids grow), and their total, read from the index alone.
    index('notification_messages_app').on(t.appId, t.messageId),
  ],
);

/**
 * The further `messages` rows of a localized send: one per localization used, each with its own
 * rendered text, all counted under the public id of the send's first message (`main_message_id`,
 * the one notification_messages names). A send without localizations has none.
 */
export const { sqlite: notificationMessageVariants, pg: notificationMessageVariantsPg } = defineTable(
  'notification_message_variants',
  {
    messageId: bigint().primaryKey().references(() => messages.id, { onDelete: 'cascade' }),
    mainMessageId: bigint().notNull().references(() => messages.id, { onDelete: 'cascade' }),
  },
  (t) => [index('notification_message_variants_main').on(t.mainMessageId)],
);

/**
 * A device reported that it opened a notification: once per device and message. Keeps the device
 * id only (no end user), and outlives the device, as its deliveries do: counts stay when a device
 * or an end user is deleted; retention removes opens with their message.
 */
export const { sqlite: notificationOpens, pg: notificationOpensPg } = defineTable(
  'notification_opens',
  {
    messageId: bigint().notNull().references(() => messages.id, { onDelete: 'cascade' }),
    deviceId: text().notNull(),
    openedAt: time().notNull(),
  },
  (t) => [primaryKey(t.messageId, t.deviceId)],
);
