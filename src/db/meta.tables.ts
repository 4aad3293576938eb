import { defineTable, text } from './table';

/**
 * Key-value settings of the installation (e.g. the generated admin token's hash). Here, not in a
 * feature: it belongs to the installation, and the backup's canary (sqlite/backup.ts) reads it
 * besides the admin token (modules/auth).
 */
export const { sqlite: meta, pg: metaPg } = defineTable('meta', {
  key: text().primaryKey(),
  value: text().notNull(),
});
