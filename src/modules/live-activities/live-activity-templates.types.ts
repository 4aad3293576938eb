import type { liveActivityTemplates } from './live-activity-templates.tables';

/** A stored app-defined template: its fields as JSON text (custom-templates.ts `CustomFields`). */
export type TemplateRow = typeof liveActivityTemplates.$inferSelect;
