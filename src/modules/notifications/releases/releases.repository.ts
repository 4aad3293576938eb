import type { ReleaseRow, ReleaseStatus, TemplateInput, TemplateRow } from './releases.types';
import type { Sql } from '../../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

const RELEASE = `app_id AS "appId", version, status, created_at AS "createdAt", updated_at AS "updatedAt"`;
const TEMPLATE = `app_id AS "appId", version, slug, title, body, placeholders, created_at AS "createdAt", updated_at AS "updatedAt", options, localizations`;
const SHAPE = { numbers: ['createdAt', 'updatedAt'] };

const list = statement<ReleaseRow>(`SELECT ${RELEASE} FROM releases WHERE app_id = $1 ORDER BY version DESC`, SHAPE);
const find = statement<ReleaseRow>(`SELECT ${RELEASE} FROM releases WHERE app_id = $1 AND version = $2`, SHAPE);
const findLive = statement<ReleaseRow>(`SELECT ${RELEASE} FROM releases WHERE app_id = $1 AND status = 'Live'`, SHAPE);
const templates = statement<TemplateRow>(
  (d) => `SELECT ${TEMPLATE} FROM notification_templates WHERE app_id = $1 AND ${d.inList('version', '$2', 'bigint')} ORDER BY slug`,
  SHAPE,
);
const findTemplate = statement<TemplateRow>(`SELECT ${TEMPLATE} FROM notification_templates WHERE app_id = $1 AND version = $2 AND slug = $3`, SHAPE);
const insertRelease = statement('INSERT INTO releases (app_id, version, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)');
const TEMPLATE_COLUMNS = 'notification_templates (app_id, version, slug, title, body, placeholders, options, localizations, created_at, updated_at)';
// Created, or (no row inserted) replaced by updateTemplate: a concurrent creation waits for the first one, so only one says created.
const createTemplate = statement(`INSERT INTO ${TEMPLATE_COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $7, $7) ON CONFLICT (app_id, version, slug) DO NOTHING`);
const updateTemplate = statement('UPDATE notification_templates SET title = $4, body = $5, placeholders = $6, options = $8, localizations = $9, updated_at = $7 WHERE app_id = $1 AND version = $2 AND slug = $3');
const deleteTemplate = statement('DELETE FROM notification_templates WHERE app_id = $1 AND version = $2 AND slug = $3');
const setStatus = statement('UPDATE releases SET status = $1, updated_at = $2 WHERE app_id = $3 AND version = $4');
/** Archives the app's Live release (other than `version`): the partial unique index allows one Live. */
const archiveLive = statement(`UPDATE releases SET status = 'Archived', updated_at = $1 WHERE app_id = $2 AND status = 'Live' AND version <> $3`);
const touch = statement('UPDATE releases SET updated_at = $1 WHERE app_id = $2 AND version = $3');

const templateValues = (appId: string, version: number, t: TemplateInput, now: number) => [appId, version, t.slug, t.title, t.body, JSON.stringify(t.placeholders), now, t.options ?? null, t.localizations ?? null];

/** Releases and their notification templates. */
export const releasesRepository = repository((sql: Sql) => {
  return {
    /** Every release of an app, newest version first. */
    list: (appId: string): Promise<ReleaseRow[]> => sql.all(list, [appId]),
    find: (appId: string, version: number): Promise<ReleaseRow | undefined> => sql.one(find, [appId, version]),
    findLive: (appId: string): Promise<ReleaseRow | undefined> => sql.one(findLive, [appId]),
    /** The templates of the given releases of an app, by slug. */
    templates: async (appId: string, versions: number[]): Promise<TemplateRow[]> => (versions.length === 0 ? [] : sql.all(templates, [appId, versions])),
    findTemplate: (appId: string, version: number, slug: string): Promise<TemplateRow | undefined> => sql.one(findTemplate, [appId, version, slug]),

    /** Writes a release and its templates in one transaction. */
    insert: (release: ReleaseRow, list: TemplateInput[]): Promise<void> =>
      sql.atomic(async (tx) => {
        if (release.status === 'Live') await tx.run(archiveLive, [release.createdAt, release.appId, release.version]);
        await tx.run(insertRelease, [release.appId, release.version, release.status, release.createdAt, release.updatedAt]);
        if (list.length === 0) return;
        // A release's templates in one statement: 10 parameters each, and a request body's 1,000 keys keep them to a few hundred.
        const rows = list.flatMap((t) => {
          const [appId, version, slug, title, body, placeholders, createdAt, options, localizations] = templateValues(release.appId, release.version, t, release.createdAt);
          return [appId, version, slug, title, body, placeholders, options, localizations, createdAt, createdAt];
        });
        await tx.run(oneOff(`INSERT INTO ${TEMPLATE_COLUMNS} VALUES ${valuesList(list.length, 10)}`), rows);
      }),

    /** Sets a release's status; making one Live archives the app's previous Live release with it. */
    setStatus: (appId: string, version: number, status: ReleaseStatus, now: number): Promise<void> =>
      sql.atomic(async (tx) => {
        if (status === 'Live') await tx.run(archiveLive, [now, appId, version]);
        await tx.run(setStatus, [status, now, appId, version]);
      }),

    /** Creates or replaces a template; true when it was created. Touches the release's updatedAt. */
    putTemplate: (appId: string, version: number, template: TemplateInput, now: number): Promise<boolean> =>
      sql.atomic(async (tx) => {
        const values = templateValues(appId, version, template, now);
        const created = (await tx.run(createTemplate, values)) > 0;
        if (!created) await tx.run(updateTemplate, values);
        await tx.run(touch, [now, appId, version]);
        return created;
      }),

    /** Removes a template; false when there was none. */
    deleteTemplate: (appId: string, version: number, slug: string, now: number): Promise<boolean> =>
      sql.atomic(async (tx) => {
        const removed = (await tx.run(deleteTemplate, [appId, version, slug])) > 0;
        if (removed) await tx.run(touch, [now, appId, version]);
        return removed;
      }),
  };
});

export type ReleasesRepository = ReturnType<typeof releasesRepository>;
