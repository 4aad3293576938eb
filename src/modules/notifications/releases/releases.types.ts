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
