import { defineTable, text } from './table';

/** Key-value settings of the installation (e.g. the generated admin token's hash). */
export const { sqlite: meta, pg: metaPg } = defineTable('meta', {
  key: text().primaryKey(),
  value: text().notNull(),
});
