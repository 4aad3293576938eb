import { defineConfig } from 'drizzle-kit';

/** PostgreSQL's migrations, generated from its own schema into their own folder (`npm run db:generate:pg`). */
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/postgres/schema.ts', './src/db/postgres/cluster-schema.ts'],
  out: './drizzle-pg',
});
