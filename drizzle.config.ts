import { defineConfig } from 'drizzle-kit';

/** SQLite's migrations, from the SQLite side of every `*.tables.ts` (src/db/table.ts): `npm run db:generate`. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/**/*.tables.ts',
  out: './drizzle',
});
