import { SQL } from 'bun';
import { join } from 'node:path';
import { inCompiledBinary } from '../../lib/compiled-binary';
import { pendingMigrations, readMigrations } from '../migrations';
import { clientOptions, type PostgresSettings } from './connection';

/**
 * The advisory lock (one bigint key, session level) held while migrating: instances started
 * together take turns, and each after the first finds nothing left to apply. Other advisory locks
 * of Islet must use other keys. 0x69736c65745f6d = "islet_m".
 */
export const MIGRATION_LOCK_KEY = 0x69736c65745f6dn;

/** Where drizzle-pg's migrations are: embedded in the binary (scripts/build.ts) or the repository's folder. */
export function defaultPgMigrationsFolder(): string {
  if (inCompiledBinary()) return '/$bunfs/root/drizzle-pg';
  return join(import.meta.dir, '..', '..', '..', 'drizzle-pg');
}

/**
 * SQLSTATEs of a migration that lost a race with the statements of instances serving the database
 * meanwhile (a rolling upgrade: its ALTER TABLEs wait for tables those statements hold): deadlock
 * detected, lock not available. The migrations run in one transaction, rolled back whole, so they
 * are tried again.
 */
const LOST_RACE = new Set(['40P01', '55P03']);
const MIGRATE_ATTEMPTS = 5;

/**
 * Applies every migration not yet applied, under the migration lock, on a connection of its own
 * (the lock is its session's: it goes with the connection should the process die meanwhile).
 * Running it again, or beside another instance doing the same, changes nothing.
 */
export async function migratePostgres(settings: PostgresSettings, migrationsFolder = defaultPgMigrationsFolder()): Promise<void> {
  const client = new SQL(settings.url, clientOptions(settings, { max: 1 }));
  try {
    await client`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await applyMigrations(client, migrationsFolder);
          break;
        } catch (e) {
          const errno = (e as { errno?: unknown }).errno;
          if (attempt === MIGRATE_ATTEMPTS || !LOST_RACE.has(String(errno))) throw e;
          await Bun.sleep(100 * attempt);
        }
      }
    } finally {
      await client`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await client.close();
  }
}

/**
 * Applies the folder's migrations newer than the last one recorded, in one transaction, as
 * drizzle-orm's PostgreSQL migrator does (../migrations.ts; its record in schema `drizzle`).
 */
async function applyMigrations(client: SQL, folder: string): Promise<void> {
  await client`CREATE SCHEMA IF NOT EXISTS drizzle`;
  await client`CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`;
  const [last] = await client`SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`;
  const pending = pendingMigrations(readMigrations(folder), last ? Number(last.created_at) : undefined);
  await client.begin(async (tx) => {
    for (const migration of pending) {
      for (const statement of migration.statements) await tx.unsafe(statement);
      await tx`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (${migration.hash}, ${migration.when})`;
    }
  });
}

/** How many migrations the database has applied (0 when it has none yet). */
export async function appliedPostgresMigrations(client: SQL): Promise<number> {
  const [row] = await client`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`;
  if (!row.present) return 0;
  const [count] = await client`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`;
  return count.n as number;
}
