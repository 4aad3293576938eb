import type { Database } from 'bun:sqlite';
import { pendingMigrations, readMigrations } from '../migrations';

/**
 * Applies the folder's migrations newer than the last one recorded, in one transaction, as
 * drizzle-orm's SQLite migrator does (../migrations.ts): each statement is prepared and run (a
 * prepared statement runs its first statement only, as drizzle's), then recorded.
 */
export function applyMigrations(client: Database, folder: string): void {
  client.run('CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)');
  const last = client.query<{ at: number | string }, []>('SELECT created_at AS at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1').get();
  const pending = pendingMigrations(readMigrations(folder), last ? Number(last.at) : undefined);
  client.transaction(() => {
    for (const migration of pending) {
      for (const statement of migration.statements) client.prepare(statement).run();
      client.prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)').run(migration.hash, migration.when);
    }
  })();
}
