import { SQL } from 'bun';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/bun-sql';
import { migrate } from 'drizzle-orm/bun-sql/migrator';
import { clientOptions, type PostgresSettings } from './connection';

/**
 * The advisory lock (one bigint key, session level) held while migrating: instances started
 * together take turns, and each after the first finds nothing left to apply. Other advisory locks
 * of Islet must use other keys. 0x69736c65745f6d = "islet_m".
 */
export const MIGRATION_LOCK_KEY = 0x69736c65745f6dn;

/** Where drizzle-pg's migrations are: embedded in the binary (scripts/build.ts) or the repository's folder. */
export function defaultPgMigrationsFolder(): string {
  if (import.meta.path.startsWith('/$bunfs/')) return '/$bunfs/root/drizzle-pg';
  return join(import.meta.dir, '..', '..', '..', 'drizzle-pg');
}

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
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      await client`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await client.close();
  }
}

/** How many migrations the database has applied (0 when it has none yet). */
export async function appliedPostgresMigrations(client: SQL): Promise<number> {
  const [row] = await client`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`;
  if (!row.present) return 0;
  const [count] = await client`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`;
  return count.n as number;
}
