import type { ListedMessageRow, MessageStateCount, OpenCount, OpenedDevice } from './notification-opens.types';
import type { Dialect } from '../../../db/sql/dialect';
import { indexedBy } from '../../../db/sql/fragments';
import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

// A notification's delivery to a device is found through the device's tokens
// (deliveries_notification_token: every notification the device ever got, not every delivery of a
// fan-out to a million devices), or, still without a token, through deliveries_tokenless_device.
// INDEXED BY on SQLite: without statistics it would walk the message's deliveries instead.
// A localized send's deliveries hang off one messages row per language (its variants): the
// message and its variants are one message to a caller.
const ANY_VARIANT = (d: Dialect, main: string) =>
  `(SELECT ${d.typed(main, 'bigint')} UNION ALL SELECT message_id FROM notification_message_variants WHERE main_message_id = ${main})`;
const sentTo = statement<OpenedDevice>(
  (d) => `SELECT dev.end_user_id AS "endUserId", dev.platform FROM devices dev WHERE dev.id = $3 AND dev.app_id = $1 AND EXISTS (
    SELECT 1 FROM deliveries${indexedBy(d, 'deliveries_notification_token')} WHERE activity_id IS NULL AND token_id IN (SELECT id FROM tokens WHERE device_id = $3) AND message_id IN ${ANY_VARIANT(d, '$2')}
    UNION ALL SELECT 1 FROM deliveries${indexedBy(d, 'deliveries_tokenless_device')} WHERE token_id IS NULL AND device_id = $3 AND message_id IN ${ANY_VARIANT(d, '$2')})`,
);
const record = statement('INSERT INTO notification_opens (message_id, device_id, opened_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING');
const count = statement<{ count: number }>('SELECT count(*) AS count FROM notification_opens WHERE message_id = $1', { numbers: ['count'] });
const counts = statement<OpenCount>(
  (d) => `SELECT message_id AS "messageId", count(*) AS count FROM notification_opens WHERE ${d.inList('message_id', '$1', 'bigint')} GROUP BY message_id`,
  { numbers: ['messageId', 'count'] },
);
const page = statement<ListedMessageRow>(
  `SELECT n.public_id AS "publicId", m.id AS "messageId", m.content, m.created_at AS "createdAt"
   FROM notification_messages n JOIN messages m ON m.id = n.message_id
   WHERE n.app_id = $1 AND NOT EXISTS (SELECT 1 FROM scheduled_sends s WHERE s.public_id = n.public_id)
   ORDER BY n.message_id DESC LIMIT $2 OFFSET $3`,
  { numbers: ['messageId', 'createdAt'] },
);
const total = statement<{ count: number }>('SELECT count(*) AS count FROM notification_messages WHERE app_id = $1', { numbers: ['count'] });
// A message a cancel stopped (notification_messages.cancelled_at) adds a row `cancelled` of count 0:
// the list says it was cancelled; its dropped deliveries count as dropped.
const deliveryCounts = statement<MessageStateCount>(
  (d) => `SELECT m.main AS "messageId", d.status, count(*) AS count
     FROM (SELECT id AS main, id FROM messages WHERE ${d.inList('id', '$1', 'bigint')}
           UNION ALL SELECT main_message_id, message_id FROM notification_message_variants WHERE ${d.inList('main_message_id', '$1', 'bigint')}) m
     JOIN deliveries d ON d.message_id = m.id GROUP BY m.main, d.status
   UNION ALL SELECT message_id, 'cancelled', 0 FROM notification_messages WHERE ${d.inList('message_id', '$1', 'bigint')} AND cancelled_at IS NOT NULL`,
  { numbers: ['messageId', 'count'] },
);

/** The statements whose plans notification-opens.plan.test.ts checks on both databases. */
export const OPENS_STATEMENTS = { sentTo, count, counts, page, total, deliveryCounts };

/** Opens reported by devices (`notification_opens`), and the app's messages listed with their counts. */
/** Opens reported by devices, and the app's messages listed with their counts. */
export const notificationOpensRepository = repository((sql: Sql) => {
  return {
    /**
     * The device, if it is the app's and a delivery of the message went to it (any state: the
     * device may show the push before its delivery's outcome is written). Deleted devices are not found.
     */
    sentTo: (appId: string, messageId: number, deviceId: string): Promise<OpenedDevice | undefined> => sql.one(sentTo, [appId, messageId, deviceId]),
    /** Records an open; false when this device had reported it already. */
    record: async (messageId: number, deviceId: string, now: number): Promise<boolean> => (await sql.run(record, [messageId, deviceId, now])) === 1,
    /** Devices that opened the message. */
    count: async (messageId: number): Promise<number> => (await sql.one(count, [messageId]))?.count ?? 0,
    /** Opens of each of the messages (absent: none). */
    counts: (messageIds: number[]): Promise<OpenCount[]> => sql.all(counts, [messageIds]),
    /** The app's messages, newest first. */
    page: (appId: string, limit: number, offset: number): Promise<ListedMessageRow[]> => sql.all(page, [appId, limit, offset]),
    /** How many messages the app has (retention removes old ones). */
    total: async (appId: string): Promise<number> => (await sql.one(total, [appId]))?.count ?? 0,
    /** Deliveries of each of the messages by state (through deliveries_message: only those messages' rows are read). */
    deliveryCounts: (messageIds: number[]): Promise<MessageStateCount[]> => sql.all(deliveryCounts, [messageIds]),
  };
});

export type NotificationOpensRepository = ReturnType<typeof notificationOpensRepository>;
