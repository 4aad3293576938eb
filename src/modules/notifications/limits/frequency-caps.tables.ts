import { defineTable, primaryKey, text } from '../../../db/table';
import { apps } from '../../apps/apps.tables';

/**
 * Frequency caps (issue 48): per end user, when their counted notifications went, newest last,
 * at most the cap's `count` of them and none older than its `perHours` (a sliding window). A send
 * reads and writes its end users' rows in its own transaction (locked on PostgreSQL), so the count
 * is exact across instances and no send scans the deliveries. A row exists only for end users a
 * capped send reached; erasing the end user deletes it.
 */
export const { sqlite: frequencyCapWindows, pg: frequencyCapWindowsPg } = defineTable(
  'frequency_cap_windows',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text().notNull(),
    /** JSON array of the times (ms) of the counted notifications still inside the window, oldest first. */
    sentAt: text().notNull(),
  },
  (t) => [primaryKey(t.appId, t.endUserId)],
);
