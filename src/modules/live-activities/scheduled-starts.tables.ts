import { defineTable, index, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';
import { activities } from './live-activities.tables';

/**
 * A Live Activity start waiting for its time (issue 47: `startAt`, `startAtLocal`): one row per
 * Scheduled activity. The due job reads only rows due now, through `scheduled_starts_due`; claiming
 * a row and queueing the start is one transaction (SKIP LOCKED on PostgreSQL), so it goes once,
 * across instances and after a crash.
 */
export const { sqlite: scheduledStarts, pg: scheduledStartsPg } = defineTable(
  'scheduled_starts',
  {
    activityId: text().primaryKey().references(() => activities.id, { onDelete: 'cascade' }),
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    dueAt: time().notNull(),
    /** waiting; started (its start is queued); cancelled (DELETE before its time); not_started (it could not start when due). */
    status: text(['waiting', 'started', 'cancelled', 'not_started']).notNull(),
    /** JSON of the start's options as given (alert, priority, staleDate, relevanceScore; dates in ms). */
    options: text().notNull(),
    createdAt: time().notNull(),
  },
  (t) => [index('scheduled_starts_due').on(t.status, t.dueAt)],
);
