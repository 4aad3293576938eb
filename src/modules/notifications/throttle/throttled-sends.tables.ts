import { bigint, defineTable } from '../../../db/table';
import { messages } from '../../delivery/delivery.tables';

/**
 * A throttled send (`throttlePerMinute`): its first messages row (the one its public id names) and
 * its rate. The due times are in its deliveries; this row lets a restart after a stop find the
 * sends whose spread fell behind and spread what is left again from then (throttle.ts). Removed
 * with its message (retention).
 */
export const { sqlite: throttledSends, pg: throttledSendsPg } = defineTable('throttled_sends', {
  messageId: bigint().primaryKey().references(() => messages.id, { onDelete: 'cascade' }),
  perMinute: bigint().notNull(),
});
