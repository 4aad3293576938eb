import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

const record = statement('INSERT INTO notification_receipts (message_id, device_id, received_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING');
const count = statement<{ count: number }>('SELECT count(*) AS count FROM notification_receipts WHERE message_id = $1', { numbers: ['count'] });
const counts = statement<{ messageId: number; count: number }>(
  (d) => `SELECT message_id AS "messageId", count(*) AS count FROM notification_receipts WHERE ${d.inList('message_id', '$1', 'bigint')} GROUP BY message_id`,
  { numbers: ['messageId', 'count'] },
);

/** Receipts reported by devices (`notification_receipts`): a notification reached the device, once per device and message. */
export const notificationReceiptsRepository = repository((sql: Sql) => ({
  /** Records a receipt; false when this device had reported it already. */
  record: async (messageId: number, deviceId: string, now: number): Promise<boolean> => (await sql.run(record, [messageId, deviceId, now])) === 1,
  /** Devices that reported the message received. */
  count: async (messageId: number): Promise<number> => (await sql.one(count, [messageId]))?.count ?? 0,
  /** Receipts of each of the messages (absent: none). */
  counts: (messageIds: number[]): Promise<{ messageId: number; count: number }[]> => sql.all(counts, [messageIds]),
}));
