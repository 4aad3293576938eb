import type { ReleaseRow, ReleasesRepository, TemplateRow } from '../../../modules/notifications/releases.repository';
import { all, one, run, valuesList, type Pg, type PgScope } from '../query';

const RELEASE = `app_id AS "appId", version, status, created_at AS "createdAt", updated_at AS "updatedAt"`;
const TEMPLATE = `app_id AS "appId", version, slug, title, body, placeholders, created_at AS "createdAt", updated_at AS "updatedAt", options`;
const NUMBERS = ['createdAt', 'updatedAt'];

/** Archives the app's Live release (other than `version`): the partial unique index allows one Live. */
const archiveLive = (c: Pg, appId: string, version: number, now: number) =>
  run(c, `UPDATE releases SET status = 'Archived', updated_at = $1 WHERE app_id = $2 AND status = 'Live' AND version <> $3`, [now, appId, version]);
const touch = (c: Pg, appId: string, version: number, now: number) => run(c, 'UPDATE releases SET updated_at = $1 WHERE app_id = $2 AND version = $3', [now, appId, version]);

/** Releases and their notification templates on PostgreSQL. */
export function releasesPg({ q, atomic }: PgScope): ReleasesRepository {
  return {
    list: (appId) => all<ReleaseRow>(q, `SELECT ${RELEASE} FROM releases WHERE app_id = $1 ORDER BY version DESC`, [appId], NUMBERS),
    find: (appId, version) => one<ReleaseRow>(q, `SELECT ${RELEASE} FROM releases WHERE app_id = $1 AND version = $2`, [appId, version], NUMBERS),
    findLive: (appId) => one<ReleaseRow>(q, `SELECT ${RELEASE} FROM releases WHERE app_id = $1 AND status = 'Live'`, [appId], NUMBERS),
    templates: async (appId, versions) =>
      versions.length === 0
        ? []
        : all<TemplateRow>(q, `SELECT ${TEMPLATE} FROM notification_templates WHERE app_id = $1 AND version = ANY($2::int[]) ORDER BY slug`, [appId, versions], NUMBERS),
    findTemplate: (appId, version, slug) =>
      one<TemplateRow>(q, `SELECT ${TEMPLATE} FROM notification_templates WHERE app_id = $1 AND version = $2 AND slug = $3`, [appId, version, slug], NUMBERS),

    insert: (release, templates) =>
      atomic(async (c) => {
        if (release.status === 'Live') await archiveLive(c, release.appId, release.version, release.createdAt);
        await run(c, 'INSERT INTO releases (app_id, version, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)', [
          release.appId,
          release.version,
          release.status,
          release.createdAt,
          release.updatedAt,
        ]);
        if (templates.length > 0)
          await run(
            c,
            `INSERT INTO notification_templates (app_id, version, slug, title, body, placeholders, created_at, updated_at, options) VALUES ${valuesList(templates.length, 9)}`,
            templates.flatMap((t) => [release.appId, release.version, t.slug, t.title, t.body, JSON.stringify(t.placeholders), release.createdAt, release.createdAt, t.options]),
          );
      }),

    setStatus: (appId, version, status, now) =>
      atomic(async (c) => {
        if (status === 'Live') await archiveLive(c, appId, version, now);
        await run(c, 'UPDATE releases SET status = $1, updated_at = $2 WHERE app_id = $3 AND version = $4', [status, now, appId, version]);
      }),

    putTemplate: (appId, version, t, now) =>
      atomic(async (c) => {
        // xmax = 0 on the returned row: it was inserted, not updated.
        const row = await one<{ inserted: boolean }>(
          c,
          `INSERT INTO notification_templates (app_id, version, slug, title, body, placeholders, created_at, updated_at, options) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
           ON CONFLICT (app_id, version, slug) DO UPDATE SET title = excluded.title, body = excluded.body, placeholders = excluded.placeholders, options = excluded.options, updated_at = excluded.updated_at
           RETURNING (xmax = 0) AS inserted`,
          [appId, version, t.slug, t.title, t.body, JSON.stringify(t.placeholders), now, t.options],
        );
        await touch(c, appId, version, now);
        return row!.inserted;
      }),

    deleteTemplate: (appId, version, slug, now) =>
      atomic(async (c) => {
        const removed = (await run(c, 'DELETE FROM notification_templates WHERE app_id = $1 AND version = $2 AND slug = $3', [appId, version, slug])) > 0;
        if (removed) await touch(c, appId, version, now);
        return removed;
      }),
  };
}
