import type { Config } from '../config/config.schema';
import type { Logger } from '../lib/logger';
import { postgresSettings } from './postgres/connection';
import { openPostgresStore, type PostgresStore } from './postgres/store';
import { openSqliteStore, type SqliteStore } from './sqlite/store';

/** The store a configuration names: PostgreSQL with `[database] url`, else the SQLite file at `path`. */
export type OpenedStore = SqliteStore | PostgresStore;

/**
 * Opens the configured database (nothing migrated yet: `migrateStore` next). `instanceId`: the
 * serving instance's (coordination.instance.id), whose lease PostgreSQL claims are under.
 * @example const db = openStore(config, logger); await migrateStore(db);
 */
export function openStore(config: Config, logger: Logger, options: { checkpointPages?: number; instanceId?: string } = {}): OpenedStore {
  const postgres = postgresSettings(config);
  if (postgres) return openPostgresStore(postgres, logger, options.instanceId ?? null);
  return openSqliteStore(config.database.path, { logger, maxSizeMb: config.database.max_size_mb, checkpointPages: options.checkpointPages });
}

/** Applies the migrations not yet applied (PostgreSQL: under its advisory lock); `sqliteFolder` only for SQLite tests. */
export async function migrateStore(db: OpenedStore, sqliteFolder?: string): Promise<void> {
  if ('sqlite' in db) db.migrate(sqliteFolder);
  else await db.migrate();
}

/** Where the database is, for messages: the SQLite file, or PostgreSQL's host and database (never the password). */
export function describeDatabase(config: Config): string {
  const url = config.database.url;
  if (url === undefined) return config.database.path;
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname || 'localhost'}:${u.port || '5432'}/${decodeURIComponent(u.pathname.slice(1))}`;
  } catch {
    return 'the configured PostgreSQL';
  }
}
