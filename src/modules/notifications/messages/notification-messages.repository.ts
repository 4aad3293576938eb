import type { NotificationMessageRow, DeliveryStateCount } from './notification-messages.types';
import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

const insert = statement('INSERT INTO notification_messages (public_id, app_id, message_id) VALUES ($1, $2, $3)');
const insertVariant = statement('INSERT INTO notification_message_variants (message_id, main_message_id) VALUES ($1, $2)');
const find = statement<NotificationMessageRow>(
  `SELECT m.id AS "messageId", m.content, m.created_at AS "createdAt" FROM notification_messages n JOIN messages m ON m.id = n.message_id
   WHERE n.public_id = $1 AND n.app_id = $2`,
  { numbers: ['messageId', 'createdAt'] },
);
// Through deliveries_message, for the message and each variant of a localized send; the platform is
// the device's (a delivery keeps its device id after the device is deleted).
const counts = statement<DeliveryStateCount>(
  (d) => `SELECT dv.platform, d.status, count(*) AS count FROM deliveries d LEFT JOIN devices dv ON dv.id = d.device_id
   WHERE d.message_id IN (SELECT ${d.typed('$1', 'bigint')} UNION ALL SELECT message_id FROM notification_message_variants WHERE main_message_id = $1)
   GROUP BY dv.platform, d.status`,
  { numbers: ['count'] },
);

// A cancel: the deliveries of the message and its variants no worker has taken yet (queued, or held
// while a channel is down) are dropped; one being sent ('sending') goes on.
const cancelWaiting = statement(
  (d) => `UPDATE deliveries SET status = 'dropped', reason = 'cancelled', hold_kind = NULL
   WHERE message_id IN (SELECT ${d.typed('$1', 'bigint')} UNION ALL SELECT message_id FROM notification_message_variants WHERE main_message_id = $1)
     AND status IN ('pending', 'held')`,
);
const markCancelled = statement('UPDATE notification_messages SET cancelled_at = $2 WHERE message_id = $1 AND cancelled_at IS NULL');

/** The public ids of sent notifications (`notification_messages`), and what their deliveries became. */
/** The public ids of sent notifications and the counts of their deliveries. */
export const notificationMessagesRepository = repository((sql: Sql) => {
  return {
    /** Records the public id of a message just queued, in the send's transaction. */
    async insert(publicId: string, appId: string, messageId: number): Promise<void> {
      await sql.run(insert, [publicId, appId, messageId]);
    },
    /** Records a further message of a localized send (one per localization used), counted with `mainMessageId`'s. */
    async insertVariant(mainMessageId: number, messageId: number): Promise<void> {
      await sql.run(insertVariant, [messageId, mainMessageId]);
    },
    /** The message with this public id, if it is the app's (and retention has not removed it). */
    find: (appId: string, publicId: string): Promise<NotificationMessageRow | undefined> => sql.one(find, [publicId, appId]),
    /** The deliveries of the message and of its variants counted by platform and status. */
    counts: (messageId: number): Promise<DeliveryStateCount[]> => sql.all(counts, [messageId]),
    /** Drops the deliveries of the message and its variants that wait (queued or held): what a cancel stops. Answers how many. */
    cancelWaiting: (messageId: number, now: number): Promise<number> =>
      sql.atomic(async (tx) => {
        const dropped = await tx.run(cancelWaiting, [messageId]);
        if (dropped > 0) await tx.run(markCancelled, [messageId, now]);
        return dropped;
      }),
  };
});

export type NotificationMessagesRepository = ReturnType<typeof notificationMessagesRepository>;
