import type { notificationTemplates, releases } from './releases.tables';

export type ReleaseRow = typeof releases.$inferSelect;

export type ReleaseStatus = ReleaseRow['status'];

export type TemplateRow = typeof notificationTemplates.$inferSelect;

/** A template as written by the service: placeholders already found and validated. */
export interface TemplateInput {
  slug: string;
  title: string;
  body: string;
  placeholders: string[];
  /** JSON of the template's TemplateOptions (template-options.ts); null or absent when it has none. */
  options?: string | null;
  /** JSON of the template's Localizations (localizations.ts); null or absent when it has none. */
  localizations?: string | null;
}

/** The releases repository: what every database implements (one implementation for both databases: src/db/repositories/releases.ts). */
export interface ReleasesRepository {
  /** Every release of an app, newest version first. */
  list(appId: string): Promise<ReleaseRow[]>;
  find(appId: string, version: number): Promise<ReleaseRow | undefined>;
  findLive(appId: string): Promise<ReleaseRow | undefined>;
  /** The templates of the given releases of an app, by slug. */
  templates(appId: string, versions: number[]): Promise<TemplateRow[]>;
  findTemplate(appId: string, version: number, slug: string): Promise<TemplateRow | undefined>;
  /** Writes a release and its templates in one transaction. */
  insert(release: ReleaseRow, templates: TemplateInput[]): Promise<void>;
  /** Sets a release's status; making one Live archives the app's previous Live release with it. */
  setStatus(appId: string, version: number, status: ReleaseStatus, now: number): Promise<void>;
  /** Creates or replaces a template; true when it was created. Touches the release's updatedAt. */
  putTemplate(appId: string, version: number, template: TemplateInput, now: number): Promise<boolean>;
  /** Removes a template; false when there was none. */
  deleteTemplate(appId: string, version: number, slug: string, now: number): Promise<boolean>;
}
