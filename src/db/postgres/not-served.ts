import type { Config } from '../../config/config.schema';

/**
 * Commands that open the database: they refuse while `[database] url` names PostgreSQL (backup
 * and restore say what to use instead: postgres/backup-advice.ts).
 */
export const DATABASE_COMMANDS = new Set(['serve', 'migrate', 'admin-token', 'demo']);

/**
 * Until the PostgreSQL repositories exist, a configuration that names PostgreSQL must not quietly
 * fall back to the SQLite file: the commands that open the database stop with this one line.
 */
export function refuseUntilPostgresServes(config: Config): void {
  if (config.database.url === undefined) return;
  throw new Error(
    `this build does not serve from PostgreSQL yet: [database] url (or ISLET_DATABASE_URL) is set; remove it to use the SQLite file ${config.database.path}, or run check-config to test the connection`,
  );
}
