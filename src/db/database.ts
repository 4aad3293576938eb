import { Database } from 'bun:sqlite';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite';
import { migrate } from 'drizzle-orm/bun-sqlite/migrator';
import * as schema from './schema';

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/**
 * Where the drizzle-kit migrations are: inside the compiled binary they are embedded under
 * `/$bunfs/root/drizzle` (scripts/build.ts), otherwise they are the repository's `drizzle/` folder.
 */
export function defaultMigrationsFolder(): string {
  if (import.meta.path.startsWith('/$bunfs/')) return '/$bunfs/root/drizzle';
  return join(import.meta.dir, '..', '..', 'drizzle');
}

/**
 * Opens (creating if needed) the SQLite file with WAL, a busy timeout and foreign keys on.
 * @example const db = openDatabase('data/islet.db'); migrateDatabase(db);
 */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const client = new Database(path, { create: true, strict: true });
  client.exec('PRAGMA journal_mode = WAL');
  client.exec('PRAGMA busy_timeout = 5000');
  client.exec('PRAGMA foreign_keys = ON');
  client.exec('PRAGMA synchronous = NORMAL');
  return drizzle({ client, schema }) as Db;
}

/** Applies every migration not yet applied; running it again changes nothing. */
export function migrateDatabase(db: Db, migrationsFolder = defaultMigrationsFolder()): void {
  // drizzle-kit changes a SQLite column by rebuilding the table (create, copy, drop, rename). With
  // foreign keys on, the drop would cascade into every table referencing it, and the
  // `PRAGMA foreign_keys=OFF` in such a migration is a no-op inside drizzle's transaction: so they
  // are off around the migration (the pragma must be set outside a transaction).
  db.$client.exec('PRAGMA foreign_keys = OFF');
  try {
    migrate(db, { migrationsFolder });
  } finally {
    db.$client.exec('PRAGMA foreign_keys = ON');
  }
}

/** True when the database answers and every migration shipped with this build is applied. */
export function isDatabaseReady(db: Db, migrationsFolder = defaultMigrationsFolder()): boolean {
  try {
    const applied = db.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM __drizzle_migrations').get()?.n ?? 0;
    return applied >= shippedMigrationCount(migrationsFolder);
  } catch {
    return false;
  }
}

const shippedCounts = new Map<string, number>();
export function shippedMigrationCount(folder: string): number {
  let n = shippedCounts.get(folder);
  if (n === undefined) {
    const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
    n = journal.entries.length;
    shippedCounts.set(folder, n);
  }
  return n;
}
