import { defineTable, primaryKey, text, time } from '../../db/table';
import { apps } from '../apps/apps.tables';

/**
 * App-defined Live Activity templates (issue 39): the app's own ActivityAttributes type and its
 * typed fields. Slugs share the namespace of the eight built-ins, which are not stored.
 */
export const { sqlite: liveActivityTemplates, pg: liveActivityTemplatesPg } = defineTable(
  'live_activity_templates',
  {
    appId: text().notNull().references(() => apps.id, { onDelete: 'cascade' }),
    slug: text().notNull(),
    /** The Swift ActivityAttributes type: the APNs `attributes-type` of a start. */
    attributesType: text().notNull(),
    /** JSON of the attributes fields: name -> { type, required, list }. */
    attributes: text().notNull(),
    /** JSON of the contentState fields. */
    contentState: text().notNull(),
    /** `config` when declared in the TOML file, `api` when made through the admin API or console. */
    source: text(['config', 'api']).notNull(),
    createdAt: time().notNull(),
    updatedAt: time().notNull(),
  },
  (t) => [primaryKey(t.appId, t.slug)],
);
