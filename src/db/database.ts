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
export function openDatabase(path: string, options: { maxSizeMb?: number } = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const client = new Database(path, { create: true, strict: true });
  client.exec('PRAGMA journal_mode = WAL');
  client.exec('PRAGMA busy_timeout = 5000');
  client.exec('PRAGMA foreign_keys = ON');
  client.exec('PRAGMA synchronous = NORMAL');
  if (options.maxSizeMb !== undefined) {
    // A per-connection limit: writes that would grow the file beyond it fail with SQLITE_FULL.
    const pageSize = client.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size;
    client.exec(`PRAGMA max_page_count = ${Math.floor((options.maxSizeMb * 1024 * 1024) / pageSize)}`);
  }
  return drizzle({ client, schema }) as Db;
}

/** Applies every migration not yet applied; running it again changes nothing. */
export function migrateDatabase(db: Db, migrationsFolder = defaultMigrationsFolder()): void {
  migrate(db, { migrationsFolder });
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
function shippedMigrationCount(folder: string): number {
  let n = shippedCounts.get(folder);
  if (n === undefined) {
    const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
    n = journal.entries.length;
    shippedCounts.set(folder, n);
  }
  return n;
}
