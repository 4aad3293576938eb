import { readFileSync } from 'node:fs';
import { SQL } from 'bun';
import { ConfigError } from '../../config/config.load';
import { redactUrlPasswordIn } from '../../config/config.redact';
import { shippedMigrationCount } from '../sqlite/database';
import { clientOptions, describeTarget, type PostgresSettings } from './connection';
import { appliedPostgresMigrations, defaultPgMigrationsFolder } from './migrate';

/**
 * The oldest PostgreSQL major version Islet runs on: 15, the oldest the PostgreSQL project still
 * supports (14 reached its end of life in November 2026) and Debian 12's. It also changed what a
 * new database grants (no CREATE on schema public for every user), which `check-config` checks.
 */
export const MIN_SERVER_MAJOR = 15;

/** The major version of a `server_version` ("17.10", "15.8 (Debian 15.8-0+deb12u1)", "9.6.24"): 17, 15, 9. */
export function serverMajorVersion(version: string): number {
  return Number(/^(\d+)/.exec(version.trim())?.[1] ?? Number.NaN);
}

/** Why a server of that `server_version` is refused, or undefined when it is new enough. */
export function serverVersionProblem(version: string): string | undefined {
  const major = serverMajorVersion(version);
  if (Number.isNaN(major)) return `the server reports version "${version}", which is not PostgreSQL's: Islet needs PostgreSQL ${MIN_SERVER_MAJOR} or newer`;
  if (major < MIN_SERVER_MAJOR) return `the server runs PostgreSQL ${version.split(' ')[0]}, older than the oldest Islet supports (${MIN_SERVER_MAJOR}): upgrade it`;
  return undefined;
}

/**
 * Connects as `serve` will and says what is wrong (unreachable, authentication failed, database
 * missing, server too old, TLS refused or untrusted, no right to create what migrating creates), as a
 * ConfigError on `database.url`; otherwise one line saying what it found. Never shows the password.
 */
export async function diagnosePostgres(settings: PostgresSettings): Promise<string> {
  const target = describeTarget(settings.url);
  if (settings.caFile) {
    try {
      readFileSync(settings.caFile);
    } catch (e) {
      throw new ConfigError([`database.ca_file = "${settings.caFile}": cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
    }
  }
  const client = new SQL(settings.url, clientOptions(settings, { max: 1, connectionTimeout: 10 }));
  try {
    let row: { version: string; user: string; database: string; tls: boolean | null; inPublic: boolean; schemas: boolean };
    try {
      // Migrating creates tables in schema public, and drizzle's own schema "drizzle" (its record of migrations).
      [row] = await client`SELECT current_setting('server_version') AS version, current_user AS user, current_database() AS database,
        (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS tls, has_schema_privilege('public', 'CREATE') AS "inPublic",
        (to_regnamespace('drizzle') IS NOT NULL OR has_database_privilege(current_database(), 'CREATE')) AS schemas`;
    } catch (e) {
      throw new ConfigError([`database.url: ${connectionProblem(e, settings.url, target)}`]);
    }
    const tooOld = serverVersionProblem(row.version);
    if (tooOld) throw new ConfigError([`database.url: ${tooOld} (${target})`]);
    const shipped = shippedMigrationCount(defaultPgMigrationsFolder());
    const applied = await appliedPostgresMigrations(client);
    const grants = [
      ...(row.schemas ? [] : [`GRANT CREATE ON DATABASE "${row.database}" TO "${row.user}"`]),
      ...(row.inPublic ? [] : [`GRANT CREATE ON SCHEMA public TO "${row.user}"`]),
    ];
    if (applied < shipped && grants.length > 0) {
      throw new ConfigError([
        `database.url: user "${row.user}" may not create what migrating database "${row.database}" needs: ${grants.join('; ')} (or make the user the database's owner)`,
      ]);
    }
    return `PostgreSQL ${row.version.split(' ')[0]} at ${target}${row.tls ? ' over TLS' : ''}: connected; ${applied} of ${shipped} migrations applied${applied < shipped ? ' (serve and migrate apply the rest)' : ''}.`;
  } finally {
    await client.close();
  }
}

/** What a failed connection means for the operator, from Bun's error code and the server's SQLSTATE. */
function connectionProblem(e: unknown, url: string, target: string): string {
  const error = e as { code?: string; errno?: string; message?: string };
  const u = new URL(url);
  const user = decodeURIComponent(u.username) || 'the current user';
  const where = `${u.hostname}:${u.port || '5432'}`;
  switch (error.errno ?? error.code) {
    case 'ERR_POSTGRES_CONNECTION_REFUSED':
      return `cannot reach PostgreSQL at ${where}: the connection was refused or the host is unknown (is the server running there, on that port?)`;
    case 'ERR_POSTGRES_CONNECTION_TIMEOUT':
      return `cannot reach PostgreSQL at ${where}: no answer within 10 s (a firewall, or the wrong host?)`;
    case '28P01':
      return `authentication failed for user "${user}" at ${where}: check the user and password in the url`;
    case '28000':
      return `the server at ${where} refuses user "${user}": ${redactUrlPasswordIn(error.message ?? '', url)} (see its pg_hba.conf)`;
    case '3D000':
      return `database "${decodeURIComponent(u.pathname.slice(1))}" does not exist at ${where}: create it (CREATE DATABASE … OWNER "${user}") or correct the name in the url`;
    case 'ERR_POSTGRES_TLS_NOT_AVAILABLE':
      return `the server at ${where} does not offer TLS, which the url's sslmode requires`;
  }
  const text = redactUrlPasswordIn(`${error.message ?? String(e)}${error.code ? ` (${error.code})` : ''}`, url);
  if (/cert|ssl|tls|self.signed|verify/i.test(text)) {
    return `the TLS certificate of the server at ${where} is not trusted: ${text}; give the CA it chains to as [database] ca_file`;
  }
  return `cannot connect to PostgreSQL (${target}): ${text}`;
}

