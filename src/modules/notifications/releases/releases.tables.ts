import { sql } from 'drizzle-orm';
import { defineTable, foreignKey, integer, primaryKey, text, time, uniqueIndex } from '../../../db/table';
import { apps } from '../../apps/apps.tables';

export const { sqlite: releases, pg: releasesPg } = defineTable(
  'releases',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    version: integer().notNull(),
    status: text(['Draft', 'Testing', 'Live', 'Archived']).notNull(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
  },
  (t) => [
    primaryKey(t.appId, t.version),
    uniqueIndex('releases_one_live').on(t.appId).where(sql`status = 'Live'`),
  ],
);

export const { sqlite: notificationTemplates, pg: notificationTemplatesPg } = defineTable(
  'notification_templates',
  {
    appId: text().notNull(),
    version: integer().notNull(),
    slug: text().notNull(),
    title: text().notNull(),
    body: text().notNull(),
    /** JSON array of placeholder names found in title and body. */
    placeholders: text().notNull(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
    /**
     * JSON of the template's optional platform features (notifications/releases/template-options.ts:
     * subtitle, data, sound, badge, image, …); null when it has none, as every template made before
     * they existed.
     */
    options: text(),
    /**
     * JSON of the template's texts per BCP 47 tag (notifications/send/localizations.ts:
     * `{"de": {"title": …}}`, canonical tags); null when it has none.
     */
    localizations: text(),
  },
  (t) => [
    primaryKey(t.appId, t.version, t.slug),
    foreignKey([t.appId, t.version], () => [releases.appId, releases.version]).onDelete('cascade'),
  ],
);
