import type { TemplateRow } from './live-activity-templates.types';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

/** A template row's columns (TemplateRow), also read with an activity (optimistic-update.repository.ts). */
export const TEMPLATE_COLUMNS = `app_id AS "appId", slug, attributes_type AS "attributesType", attributes, content_state AS "contentState", source,
  created_at AS "createdAt", updated_at AS "updatedAt"`;
const SHAPE = { numbers: ['createdAt', 'updatedAt'] };
const COUNT = { numbers: ['n'] };

// Every start, update and end of a slug that is not built in looks its template up.
const bySlug = statement<TemplateRow>(`SELECT ${TEMPLATE_COLUMNS} FROM live_activity_templates WHERE app_id = $1 AND slug = $2`, SHAPE);
// PostgreSQL: a start holds its template (FOR SHARE: starts do not wait for each other) and a
// delete or replace locks it (FOR UPDATE) before counting the activities that use it, so a delete
// never misses an activity a start is committing. SQLite's one writer already serializes them.
const shared = statement<TemplateRow>(
  (d) => `SELECT ${TEMPLATE_COLUMNS} FROM live_activity_templates WHERE app_id = $1 AND slug = $2${d.forShare}`,
  SHAPE,
);
const forWrite = statement<TemplateRow>(
  (d) => `SELECT ${TEMPLATE_COLUMNS} FROM live_activity_templates WHERE app_id = $1 AND slug = $2${d.forUpdate}`,
  SHAPE,
);
const ofApp = statement<TemplateRow>(`SELECT ${TEMPLATE_COLUMNS} FROM live_activity_templates WHERE app_id = $1 ORDER BY slug`, SHAPE);
const put = statement(
  `INSERT INTO live_activity_templates (app_id, slug, attributes_type, attributes, content_state, source, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
   ON CONFLICT (app_id, slug) DO UPDATE SET attributes_type = excluded.attributes_type, attributes = excluded.attributes,
     content_state = excluded.content_state, source = excluded.source, updated_at = excluded.updated_at`,
);
// Two creates of one slug at once: the second inserts nothing (and answers 409).
const insert = statement(
  `INSERT INTO live_activity_templates (app_id, slug, attributes_type, attributes, content_state, source, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (app_id, slug) DO NOTHING`,
);
const remove = statement('DELETE FROM live_activity_templates WHERE app_id = $1 AND slug = $2');
// Broadcasts too: their updates and ends are checked against the template as well.
const active = statement<{ n: number }>(
  `SELECT (SELECT count(*) FROM activities WHERE app_id = $1 AND template_slug = $2 AND state = 'Active')
        + (SELECT count(*) FROM broadcasts WHERE app_id = $1 AND template_slug = $2 AND state = 'Active') AS n`,
  COUNT,
);
const count = statement<{ n: number }>('SELECT count(*) AS n FROM live_activity_templates WHERE app_id = $1', COUNT);

/** The `live_activity_templates` table. */
export const liveActivityTemplatesRepository = repository((sql: Sql) => {
  return {
    find: (appId: string, slug: string): Promise<TemplateRow | undefined> => sql.one(bySlug, [appId, slug]),
    /** `find` in a write that starts activities of the template: a concurrent delete or replace waits for it (PostgreSQL). */
    findShared: (appId: string, slug: string): Promise<TemplateRow | undefined> => sql.one(shared, [appId, slug]),
    /** `find` in a write that deletes or replaces the template: starts of it wait for it (PostgreSQL). */
    findForWrite: (appId: string, slug: string): Promise<TemplateRow | undefined> => sql.one(forWrite, [appId, slug]),
    /** The app's templates by slug. */
    list: (appId: string): Promise<TemplateRow[]> => sql.all(ofApp, [appId]),
    /** Inserts the template or replaces the one with its app and slug (createdAt kept). */
    async put(row: TemplateRow): Promise<void> {
      await sql.run(put, [row.appId, row.slug, row.attributesType, row.attributes, row.contentState, row.source, row.createdAt, row.updatedAt]);
    },
    /** Inserts a new template; false when the app already has one of that slug. */
    insert: async (row: TemplateRow): Promise<boolean> =>
      (await sql.run(insert, [row.appId, row.slug, row.attributesType, row.attributes, row.contentState, row.source, row.createdAt, row.updatedAt])) > 0,
    remove: async (appId: string, slug: string): Promise<boolean> => (await sql.run(remove, [appId, slug])) > 0,
    /** How many Active activities and broadcasts of the app use the template. */
    activeCount: async (appId: string, slug: string): Promise<number> => (await sql.one(active, [appId, slug]))!.n,
    /** How many templates the app has. */
    count: async (appId: string): Promise<number> => (await sql.one(count, [appId]))!.n,
  };
});

export type LiveActivityTemplatesRepository = ReturnType<typeof liveActivityTemplatesRepository>;
