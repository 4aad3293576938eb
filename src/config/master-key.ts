import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from './config.load';

/**
 * The 32-byte key that seals secrets at rest: `[security] master_key` (base64) when set, else the
 * key file `islet.key` beside the database, created with mode 0600 on first start. Losing the key
 * file means losing the stored secrets, so back it up with the database.
 */
export function resolveMasterKey(configured: string | undefined, databasePath: string): { key: Buffer; file?: string; created: boolean } {
  if (databasePath === ':memory:' && !configured) return { key: randomBytes(32), created: true };
  const existing = findMasterKey(configured, databasePath);
  if (existing) return { ...existing, created: false };
  const file = masterKeyFile(databasePath);
  writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key: Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), file, created: true };
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
  if (configured) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new ConfigError(['security.master_key must be base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)']);
    return { key };
  }
  const file = masterKeyFile(databasePath);
  if (!existsSync(file)) return undefined;
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError([`${file} does not hold base64 of 32 bytes`]);
  return { key, file };
}
