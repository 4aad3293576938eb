import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from './config.load';

/**
 * The 32-byte key that seals secrets at rest: `[security] master_key` (base64) when set, else the
 * key file `islet.key` beside the database, created with mode 0600 on first start. Losing the key
 * file means losing the stored secrets, so back it up with the database.
 */
export function resolveMasterKey(configured: string | undefined, databasePath: string): { key: Buffer; file?: string; created: boolean } {
  const existing = readMasterKey(configured, databasePath);
  // Installs from before the key file was created 0600 are tightened too.
  if (existing.key && existing.file) chmodSync(existing.file, 0o600);
  if (existing.key) return { key: existing.key, file: existing.file, created: false };
  if (!existing.file) return { key: randomBytes(32), created: true };
  // On PostgreSQL nothing else creates the folder of [database] path, where the key file goes.
  mkdirSync(dirname(existing.file), { recursive: true, mode: 0o700 });
  writeFileSync(existing.file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  chmodSync(existing.file, 0o600);
  return { key: Buffer.from(readFileSync(existing.file, 'utf8').trim(), 'base64'), file: existing.file, created: true };
}

/**
 * The master key as configured or already on disk, without creating anything (what
 * `check-config` checks): throws ConfigError for a key of the wrong length. `key` is undefined
 * when a key file would be created at start; `file` is undefined for an in-memory database.
 */
export function readMasterKey(configured: string | undefined, databasePath: string): { key?: Buffer; file?: string } {
  if (configured) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new ConfigError(['security.master_key must be base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)']);
    return { key };
  }
  if (databasePath === ':memory:') return {};
  const file = masterKeyFile(databasePath);
  if (!existsSync(file)) return { file };
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError([`${file} does not hold base64 of 32 bytes`]);
  return { key, file };
}

/** Where the key file of a database is when `[security] master_key` is not set. */
export function masterKeyFile(databasePath: string): string {
  return join(dirname(databasePath), 'islet.key');
}

/**
 * The master key from `[security] master_key` or the database's existing key file, without ever
 * creating one (backup and restore must not invent a key); undefined when there is none.
 */
export function findMasterKey(configured: string | undefined, databasePath: string): { key: Buffer; file?: string } | undefined {
  const { key, file } = readMasterKey(configured, databasePath);
  return key ? { key, file } : undefined;
}
