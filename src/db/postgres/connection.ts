import { SQL } from 'bun';
import type { Config } from '../../config/config.schema';

/** How to reach PostgreSQL: `[database] url`, `pool_size`, `ca_file`. */
export interface PostgresSettings {
  url: string;
  poolSize: number;
  /** CA certificate (PEM) to verify the server with. */
  caFile?: string;
}

/** The PostgreSQL settings of a configuration, or undefined when it serves from the SQLite file. */
export function postgresSettings(config: Config): PostgresSettings | undefined {
  const { url, pool_size, ca_file } = config.database;
  return url === undefined ? undefined : { url, poolSize: pool_size, caFile: ca_file };
}

/**
 * Options of Bun's client. TLS as PostgreSQL users expect: `sslmode` in the URL (disable, allow,
 * prefer, require, verify-ca, verify-full; Bun reads it); a CA file raises a mode below verify-ca to
 * verify-full. int8 stays a string in raw results (`bigint: false`): drizzle's `bigint` columns in
 * mode 'number' turn it into a JS number, where a BigInt would not survive JSON.stringify.
 */
export function clientOptions(settings: PostgresSettings, overrides: { max?: number; connectionTimeout?: number } = {}): SQL.PostgresOrMySQLOptions {
  return {
    max: overrides.max ?? settings.poolSize,
    bigint: false,
    prepare: true,
    ...(overrides.connectionTimeout !== undefined ? { connectionTimeout: overrides.connectionTimeout } : {}),
    ...(settings.caFile ? { tls: { ca: Bun.file(settings.caFile) } } : {}),
  };
}

/** `host:port/database as user`, for messages: never the password. */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    const database = decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || 'postgres';
    return `${u.hostname || 'localhost'}:${u.port || '5432'}/${database} as ${decodeURIComponent(u.username) || 'the current user'}`;
  } catch {
    return 'the configured PostgreSQL';
  }
}
