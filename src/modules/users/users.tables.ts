import { sql } from 'drizzle-orm';
import { boolean, defineTable, index, primaryKey, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

export const { sqlite: endUsers, pg: endUsersPg } = defineTable(
  'end_users',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    id: text().notNull(),
    tester: boolean().notNull().default(false),
    createdAt: time().notNull(),
    lastSeenAt: time().notNull(),
    /** The end user's own quiet hours, JSON `{start, end}`, instead of the app's; null: the app's apply. */
    quietHours: text(),
    /** The end user's own frequency cap, JSON `{count, perHours}`, instead of the app's; null: the app's applies. */
    frequencyCap: text(),
  },
  (t) => [
    primaryKey(t.appId, t.id),
    // A send looks up whether any end user has limits of their own, then only those: few rows.
    index('end_users_own_limits').on(t.appId, t.id).where(sql`quiet_hours IS NOT NULL OR frequency_cap IS NOT NULL`),
  ],
);

/**
 * An end user's tags (issue 38): one row per key, set through `PUT/PATCH …/users/{endUserId}`; a
 * send's `audience` matches them. Kept apart from `end_users` so a user may have tags before any
 * device; erasing the end user deletes them.
 */
export const { sqlite: endUserTags, pg: endUserTagsPg } = defineTable(
  'end_user_tags',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    endUserId: text().notNull(),
    key: text().notNull(),
    value: text().notNull(),
  },
  // The primary key answers an audience's per-device lookup (app, user, key); the second index the
  // console's "who has plan=gold" and counts by value.
  (t) => [primaryKey(t.appId, t.endUserId, t.key), index('end_user_tags_app_key_value').on(t.appId, t.key, t.value)],
);
