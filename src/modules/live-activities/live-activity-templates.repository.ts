import type { liveActivityTemplates } from './live-activity-templates.tables';

/** A stored app-defined template: its fields as JSON text (custom-templates.ts `CustomFields`). */
export type TemplateRow = typeof liveActivityTemplates.$inferSelect;

/** The app-defined Live Activity templates (one implementation for both databases: src/db/repositories/live-activity-templates.ts). */
export interface LiveActivityTemplatesRepository {
  find(appId: string, slug: string): Promise<TemplateRow | undefined>;
  /** `find` in a write that starts activities of the template: a concurrent delete or replace waits for it (PostgreSQL). */
  findShared(appId: string, slug: string): Promise<TemplateRow | undefined>;
  /** `find` in a write that deletes or replaces the template: starts of it wait for it (PostgreSQL). */
  findForWrite(appId: string, slug: string): Promise<TemplateRow | undefined>;
  /** The app's templates by slug. */
  list(appId: string): Promise<TemplateRow[]>;
  /** Inserts a new template; false when the app already has one of that slug. */
  insert(row: TemplateRow): Promise<boolean>;
  /** Inserts the template or replaces the one with its app and slug (createdAt kept). */
  put(row: TemplateRow): Promise<void>;
  remove(appId: string, slug: string): Promise<boolean>;
  /** How many Active activities and broadcasts of the app use the template. */
  activeCount(appId: string, slug: string): Promise<number>;
  /** How many templates the app has. */
  count(appId: string): Promise<number>;
}
