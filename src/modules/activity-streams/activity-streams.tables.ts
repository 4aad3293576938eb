import { defineTable, primaryKey, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/**
 * Activity streams: a key of the app's choosing whose PUT says "this is the state now"; Islet
 * starts, updates, does nothing or starts over (before iOS's 8-hour limit).
 */
export const { sqlite: activityStreams, pg: activityStreamsPg } = defineTable(
  'activity_streams',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    key: text().notNull(),
    templateSlug: text().notNull(),
    /** JSON, as started: a change of template, attributes or targets starts over. */
    attributes: text().notNull(),
    /** JSON array of end user ids; null: every connected end user. */
    targetUsers: text(),
    /** JSON of the last contentState put. */
    contentState: text().notNull(),
    /** JSON array of the ids of the activities started for the stream's current run. */
    activityIds: text().notNull(),
    startedAt: time().notNull(),
    updatedAt: time().notNull(),
  },
  (t) => [primaryKey(t.appId, t.key)],
);
