import { resolve } from 'node:path';
import type { Config } from '../../config/config.schema';
import { masterKeyFile } from '../../config/master-key';
import type { PostgresSettings } from './connection';

/** sslmodes that verify the server's certificate; a CA file raises any other to verify-full (as Islet does). */
const VERIFYING = new Set(['verify-ca', 'verify-full']);

/**
 * The URL libpq's tools (pg_dump, pg_restore, psql) take for the same connection as Islet's:
 * the password left out (they read PGPASSWORD or ~/.pgpass), the CA file as `sslrootcert`.
 */
export function libpqUrl(settings: PostgresSettings): string {
  const u = new URL(settings.url);
  u.password = '';
  if (settings.caFile) {
    u.searchParams.set('sslrootcert', resolve(settings.caFile));
    if (!VERIFYING.has(u.searchParams.get('sslmode') ?? '')) u.searchParams.set('sslmode', 'verify-full');
  }
  return u.toString();
}

/** One shell word, single-quoted. */
const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * What `islet backup` / `islet restore` say with `[database] url`: they do not run pg_dump, they
 * print its exact command. Islet cannot pick a right pg_dump for the operator: it must be of the
 * server's major version or newer (Debian 12's pg_dump 15 refuses a PostgreSQL 17 server), the
 * container image has none, and managed services back up by snapshots and point-in-time
 * recovery. Thrown as the command's error: nothing was written, and a scheduled backup must fail.
 */
export function postgresBackupAdvice(command: 'backup' | 'restore', file: string, config: Config, settings: PostgresSettings): string {
  const key = config.security.master_key ? 'the master key of [security] master_key' : `the key file ${resolve(masterKeyFile(config.database.path))}`;
  const url = quote(libpqUrl(settings));
  const password = `PGPASSWORD='<password>'`;
  const passwordNote = `PGPASSWORD: the url's password, left out here (or put it in ~/.pgpass).`;
  if (command === 'backup') {
    return [
      `backup: [database] url names PostgreSQL, which islet backup does not copy (it copies the SQLite file); nothing was written. Back it up with pg_dump:`,
      `  ${password} pg_dump --format=custom --file=${quote(file)} --dbname=${url}`,
      `${passwordNote} pg_dump must be of the server's major version or newer; it runs while Islet serves (one consistent snapshot).`,
      `The secrets in the dump are sealed with ${key}: keep a copy of that key with the dump.`,
    ].join('\n');
  }
  return [
    `restore: [database] url names PostgreSQL, which islet restore does not write (it restores SQLite files); nothing was changed. Stop every Islet instance, then restore a pg_dump archive with pg_restore:`,
    `  ${password} pg_restore --clean --if-exists --no-owner --single-transaction --exit-on-error --dbname=${url} ${quote(file)}`,
    `--single-transaction: all or nothing. The restored secrets open with the key that sealed them (${key} now).`,
  ].join('\n');
}
