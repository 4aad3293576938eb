import { bigint, defineTable, id, index, text, time } from '../../../db/table';
import { apps } from '../../apps/apps.tables';

/**
 * A notification send waiting for its time (`sendAt`, `sendAtLocal`): one row per UTC instant it
 * goes out at (a `sendAtLocal` has one per group of zones whose wall time falls at the same
 * instant). The due job reads only rows due now, through `scheduled_sends_due`; claiming a row and
 * queueing its deliveries is one transaction, so it goes out once.
 */
export const { sqlite: scheduledSends, pg: scheduledSendsPg } = defineTable(
  'scheduled_sends',
  {
    id: id(),
    /** The message's public id (`msg_…`), shared by every row of one send. */
    publicId: text().notNull(),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    dueAt: time().notNull(),
    /** JSON array of the IANA zones this row reaches (a device's own zone, else the app's default); null: every device (`sendAt`). */
    zones: text(),
    /** waiting; sent (its deliveries are queued); cancelled; expired (the server came back after its ttlSeconds); failed (it could not be rendered when due). */
    status: text(['waiting', 'sent', 'cancelled', 'expired', 'failed']).notNull(),
    /** JSON of the prepared send: the template as it was at scheduling time, the send's variables, additions and audience. */
    send: text().notNull(),
    /** Deliveries queued when it went, or the devices it would have reached when cancelled; null while waiting. */
    devices: bigint(),
    createdAt: time().notNull(),
  },
  (t) => [index('scheduled_sends_due').on(t.status, t.dueAt), index('scheduled_sends_public').on(t.publicId)],
);
