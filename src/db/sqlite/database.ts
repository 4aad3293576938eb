import { Database } from 'bun:sqlite';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { inCompiledBinary } from '../../lib/compiled-binary';
import { readJournal } from '../migrations';
import { applyMigrations } from './migrate';

/** The open file. Statements name their tables themselves (db/sql); no ORM is loaded at run time (../migrations.ts). */
export interface Db {
  $client: Database;
}

/**
 * Where the drizzle-kit migrations are: inside the compiled binary they are embedded under
 * `/$bunfs/root/drizzle` (scripts/build.ts), otherwise they are the repository's `drizzle/` folder.
 */
export function defaultMigrationsFolder(): string {
  if (inCompiledBinary()) return '/$bunfs/root/drizzle';
  return join(import.meta.dir, '..', '..', '..', 'drizzle');
}

/**
 * Opens (creating if needed) the SQLite file with WAL, a busy timeout and foreign keys on. The
 * file and its WAL and shared-memory files are readable by this user only (0600) in a folder of
 * its own (0700); installs made before that are tightened on open. `checkpointPages`: see below.
 * @example const db = openDatabase('data/islet.db'); migrateDatabase(db);
 */
export function openDatabase(path: string, options: { maxSizeMb?: number; checkpointPages?: number } = {}): Db {
  if (path !== ':memory:') protectFolder(dirname(path));
  const client = new Database(path, { create: true, strict: true });
  // Before WAL mode: SQLite gives the -wal and -shm files the database file's permissions.
  if (path !== ':memory:') for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  client.exec('PRAGMA journal_mode = WAL');
  client.exec('PRAGMA busy_timeout = 5000');
  client.exec('PRAGMA foreign_keys = ON');
  client.exec('PRAGMA synchronous = NORMAL');
  // After a commit that leaves the WAL over this many pages, this connection copies it into the
  // database (SQLite's default: 1,000 pages, 4 MB).
  if (options.checkpointPages !== undefined) client.exec(`PRAGMA wal_autocheckpoint = ${options.checkpointPages}`);
  if (options.maxSizeMb !== undefined) {
    // A per-connection limit: writes that would grow the file beyond it fail with SQLITE_FULL.
    const pageSize = client.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size;
    client.exec(`PRAGMA max_page_count = ${Math.floor((options.maxSizeMb * 1024 * 1024) / pageSize)}`);
  }
  return { $client: client };
}

/**
 * Creates the database's folder 0700, or tightens it to 0700 when it exists, unless it is the
 * working directory itself (a database named without a folder), which is not ours to change.
 */
function protectFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (resolve(folder) !== process.cwd()) chmodSync(folder, 0o700);
}

/** Applies every migration not yet applied; running it again changes nothing. */
export function migrateDatabase(db: Db, migrationsFolder = defaultMigrationsFolder()): void {
  // The usual start: nothing to apply. Applying would read and hash every SQL file to find that
  // out; the journal alone says it (those newer than the last applied are applied: ../migrations.ts).
  if (lastAppliedMillis(db) >= journalSummary(migrationsFolder).lastMillis) return;
  // drizzle-kit changes a SQLite column by rebuilding the table (create, copy, drop, rename). With
  // foreign keys on, the drop would cascade into every table referencing it, and the
  // `PRAGMA foreign_keys=OFF` in such a migration is a no-op inside the migrations' transaction: so they
  // are off around the migration (the pragma must be set outside a transaction).
  db.$client.exec('PRAGMA foreign_keys = OFF');
  try {
    applyMigrations(db.$client, migrationsFolder);
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

/** `created_at` of the last migration applied (drizzle's `folderMillis`, the journal's `when`); -1 before any. */
function lastAppliedMillis(db: Db): number {
  try {
    return Number(db.$client.query<{ at: number | null }, []>('SELECT max(created_at) AS at FROM __drizzle_migrations').get()?.at ?? -1);
  } catch {
    return -1;
  }
}

/** How many migrations the folder's journal lists, and the `when` of the newest (Infinity when none: applying decides). */
function journalSummary(folder: string): { count: number; lastMillis: number } {
  const { entries } = readJournal(folder);
  return { count: entries.length, lastMillis: entries.length ? Math.max(...entries.map((e) => e.when)) : Infinity };
}

const shippedCounts = new Map<string, number>();
export function shippedMigrationCount(folder: string): number {
  let n = shippedCounts.get(folder);
  if (n === undefined) {
    n = journalSummary(folder).count;
    shippedCounts.set(folder, n);
  }
  return n;
}
