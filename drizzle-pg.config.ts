import { defineConfig } from 'drizzle-kit';

/** PostgreSQL's migrations, from the PostgreSQL side of the same `*.tables.ts` files, into their own folder: `npm run db:generate:pg`. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/**/*.tables.ts',
  out: './drizzle-pg',
});
