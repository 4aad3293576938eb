import { bigint, defineTable, primaryKey, text, time } from '../../../db/table';
import { messages } from '../../delivery/delivery.tables';

/**
 * A device reported that a notification reached it (its notification service extension, Android's
 * `onMessageReceived`): once per device and message. Like opens, keeps the device id only and
 * outlives the device; retention removes receipts with their message.
 */
export const { sqlite: notificationReceipts, pg: notificationReceiptsPg } = defineTable(
  'notification_receipts',
  {
    messageId: bigint().notNull().references(() => messages.id, { onDelete: 'cascade' }),
    deviceId: text().notNull(),
    receivedAt: time().notNull(),
  },
  (t) => [primaryKey(t.messageId, t.deviceId)],
);
