import { and, asc, desc, eq, inArray, ne } from 'drizzle-orm';
import type { Db } from '../database';
import { promised } from '../promised';
import { notificationTemplates, releases } from '../../schema';
import type { ReleaseRow, ReleaseStatus, TemplateRow, TemplateInput, ReleasesRepository } from '../../../modules/notifications/releases.repository';

/** Storage of releases and their notification templates. */
function releasesStatements(db: Db) {
  const templateRow = (appId: string, version: number, t: TemplateInput, now: number): TemplateRow => ({
    appId,
    version,
    slug: t.slug,
    title: t.title,
    body: t.body,
    placeholders: JSON.stringify(t.placeholders),
    options: t.options,
    createdAt: now,
    updatedAt: now,
  });

  return {
    /** Every release of an app, newest version first. */
    list(appId: string): ReleaseRow[] {
      return db.select().from(releases).where(eq(releases.appId, appId)).orderBy(desc(releases.version)).all();
    },

    find(appId: string, version: number): ReleaseRow | undefined {
      return db
        .select()
        .from(releases)
        .where(and(eq(releases.appId, appId), eq(releases.version, version)))
        .get();
    },

    findLive(appId: string): ReleaseRow | undefined {
      return db
        .select()
        .from(releases)
        .where(and(eq(releases.appId, appId), eq(releases.status, 'Live')))
        .get();
    },

    /** The templates of the given releases of an app, by slug. */
    templates(appId: string, versions: number[]): TemplateRow[] {
      if (versions.length === 0) return [];
      return db
        .select()
        .from(notificationTemplates)
        .where(and(eq(notificationTemplates.appId, appId), inArray(notificationTemplates.version, versions)))
        .orderBy(asc(notificationTemplates.slug))
        .all();
    },

    findTemplate(appId: string, version: number, slug: string): TemplateRow | undefined {
      return db
        .select()
        .from(notificationTemplates)
        .where(and(eq(notificationTemplates.appId, appId), eq(notificationTemplates.version, version), eq(notificationTemplates.slug, slug)))
        .get();
    },

    /** Writes a release and its templates in one transaction. */
    insert(release: ReleaseRow, templates: TemplateInput[]): void {
      db.transaction((tx) => {
        if (release.status === 'Live') archiveLive(tx, release.appId, release.version, release.createdAt);
        tx.insert(releases).values(release).run();
        if (templates.length > 0) {
          tx.insert(notificationTemplates)
            .values(templates.map((t) => templateRow(release.appId, release.version, t, release.createdAt)))
            .run();
        }
      }, { behavior: 'immediate' });
    },

    /** Sets a release's status; making one Live archives the app's previous Live release with it. */
    setStatus(appId: string, version: number, status: ReleaseStatus, now: number): void {
      db.transaction((tx) => {
        if (status === 'Live') archiveLive(tx, appId, version, now);
        tx.update(releases)
          .set({ status, updatedAt: now })
          .where(and(eq(releases.appId, appId), eq(releases.version, version)))
          .run();
      }, { behavior: 'immediate' });
    },

    /** Creates or replaces a template; true when it was created. Touches the release's updatedAt. */
    putTemplate(appId: string, version: number, template: TemplateInput, now: number): boolean {
      return db.transaction((tx) => {
        const existed = tx
          .select({ slug: notificationTemplates.slug })
          .from(notificationTemplates)
          .where(and(eq(notificationTemplates.appId, appId), eq(notificationTemplates.version, version), eq(notificationTemplates.slug, template.slug)))
          .get();
        const row = templateRow(appId, version, template, now);
        tx.insert(notificationTemplates)
          .values(row)
          .onConflictDoUpdate({
            target: [notificationTemplates.appId, notificationTemplates.version, notificationTemplates.slug],
            set: { title: row.title, body: row.body, placeholders: row.placeholders, options: row.options, updatedAt: now },
          })
          .run();
        touch(tx, appId, version, now);
        return existed === undefined;
      }, { behavior: 'immediate' });
    },

    /** Removes a template; false when there was none. */
    deleteTemplate(appId: string, version: number, slug: string, now: number): boolean {
      return db.transaction((tx) => {
        const removed = tx
          .delete(notificationTemplates)
          .where(and(eq(notificationTemplates.appId, appId), eq(notificationTemplates.version, version), eq(notificationTemplates.slug, slug)))
          .returning({ slug: notificationTemplates.slug })
          .all();
        if (removed.length > 0) touch(tx, appId, version, now);
        return removed.length > 0;
      }, { behavior: 'immediate' });
    },
  };
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Archives the app's Live release (other than `version`); the partial unique index allows one Live. */
function archiveLive(tx: Tx, appId: string, version: number, now: number): void {
  tx.update(releases)
    .set({ status: 'Archived', updatedAt: now })
    .where(and(eq(releases.appId, appId), eq(releases.status, 'Live'), ne(releases.version, version)))
    .run();
}

function touch(tx: Tx, appId: string, version: number, now: number): void {
  tx.update(releases)
    .set({ updatedAt: now })
    .where(and(eq(releases.appId, appId), eq(releases.version, version)))
    .run();
}

/** The repository over releasesStatements: every method returns a Promise. */
export const releasesRepository = (db: Db): ReleasesRepository => promised(releasesStatements(db));
