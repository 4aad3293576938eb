import { Database } from 'bun:sqlite';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CANARY_KEY } from '../master-key-canary';
import { ConfigError } from '../../config/config.load';
import type { Config } from '../../config/config.schema';
import { findMasterKey, masterKeyFile } from '../../config/master-key';
import { defaultMigrationsFolder, shippedMigrationCount } from './database';
import { tryInstanceLock } from '../instance-lock';
import { SecretBox } from '../../lib/secrets';
import { backupStatements } from './backup-statements';

const WAL_FILES = ['-wal', '-shm'];

/** Writes `file` to disk before it is renamed into place, so a crash cannot leave half of it. */
function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function keyAdvice(config: Config): string {
  return config.security.master_key
    ? 'the master key of [security] master_key (or ISLET_SECURITY_MASTER_KEY)'
    : `the key file ${resolve(masterKeyFile(config.database.path))}`;
}

/**
 * `islet backup FILE`: a consistent copy of the database, also while a server writes to it
 * (VACUUM INTO reads one snapshot in a read transaction, which WAL lets run beside writers).
 * Written to a temporary name beside FILE and renamed when complete and checked.
 * Returns the lines to print.
 */
export function backupDatabase(config: Config, file: string): string[] {
  const source = config.database.path;
  if (!existsSync(source)) throw new ConfigError([`no database at ${source}`]);
  if (existsSync(file)) throw new ConfigError([`${file} already exists; choose a new name (e.g. with the date)`]);
  // Made here: the FROM-scratch image has no shell to make it with.
  mkdirSync(dirname(file), { recursive: true });
  const partial = join(dirname(file), `.${basename(file)}.partial`);
  rmSync(partial, { force: true });
  const db = new Database(source, { readwrite: true, create: false });
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    backupStatements(db).vacuumInto(partial);
  } finally {
    db.close();
  }
  const copy = new Database(partial);
  let summary: string;
  try {
    const repo = backupStatements(copy);
    const check = repo.integrityCheck();
    if (check[0] !== 'ok') throw new Error(`the copy failed its integrity check: ${check.slice(0, 3).join('; ')}`);
    const n = repo.counts();
    summary = `${n.apps} apps, ${n.activities} live activities, ${n.deliveries} deliveries`;
  } catch (e) {
    copy.close();
    rmSync(partial, { force: true });
    throw e;
  }
  copy.close();
  syncFile(partial);
  renameSync(partial, file);
  return [
    `backup written to ${file} (${statSync(file).size} bytes: ${summary}; integrity ok)`,
    `it needs ${keyAdvice(config)} to open its secrets: keep a copy of that key with the backup`,
  ];
}

/**
 * `islet restore FILE`: replaces the configured database with a backup. Refuses while a server
 * holds the database (see instance-lock.ts) and keeps the lock while it works, so none can start.
 * The backup is copied beside the database first and checked there (integrity, an Islet database
 * no newer than this build, the master key opens its secrets); then the current database (with its
 * WAL, which must never be applied to another file) is moved aside and the copy renamed into place.
 * Returns the lines to print.
 */
export function restoreDatabase(config: Config, file: string, migrationsFolder = defaultMigrationsFolder()): string[] {
  const target = config.database.path;
  if (!existsSync(file)) throw new ConfigError([`no backup at ${file}`]);
  const lock = tryInstanceLock(target);
  if (!lock) throw new ConfigError([`an Islet server is running on ${target}: stop it first, then restore`]);
  const staged = join(dirname(target), `.${basename(target)}.restoring`);
  try {
    rmSync(staged, { force: true });
    // Copied through SQLite, so a backup that is itself in WAL mode arrives whole.
    const source = new Database(file, { readwrite: true, create: false });
    try {
      backupStatements(source).vacuumInto(staged);
    } finally {
      source.close();
    }
    const summary = checkRestorable(config, staged, migrationsFolder);
    syncFile(staged);
    const lines: string[] = [];
    if (existsSync(target)) {
      const aside = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(target, aside);
      for (const suffix of WAL_FILES) if (existsSync(target + suffix)) renameSync(target + suffix, aside + suffix);
      lines.push(`the previous database is kept as ${aside}`);
    }
    renameSync(staged, target);
    return [`restored ${target} from ${file} (${summary}; integrity ok, master key opens its secrets)`, ...lines];
  } catch (e) {
    rmSync(staged, { force: true });
    throw e;
  } finally {
    lock.release();
  }
}

function checkRestorable(config: Config, staged: string, migrationsFolder: string): string {
  const db = new Database(staged);
  try {
    const repo = backupStatements(db);
    const check = repo.integrityCheck();
    if (check[0] !== 'ok') throw new ConfigError([`the backup failed its integrity check: ${check.slice(0, 3).join('; ')}`]);
    const applied = repo.appliedMigrations();
    if (applied === undefined) throw new ConfigError(['the file is not an Islet database']);
    if (applied > shippedMigrationCount(migrationsFolder)) throw new ConfigError(['the backup comes from a newer Islet: restore it with that version']);
    const canary = repo.meta(CANARY_KEY);
    const key = findMasterKey(config.security.master_key, config.database.path);
    if (!key) throw new ConfigError([`no master key: put the backup's islet.key at ${masterKeyFile(config.database.path)} or set [security] master_key, then restore`]);
    try {
      if (canary) new SecretBox(key.key).open(canary, CANARY_KEY);
    } catch {
      throw new ConfigError([`${key.file ?? 'security.master_key'} does not open this backup's secrets: use the key that was saved with it`]);
    }
    const n = repo.counts();
    return `${n.apps} apps, ${n.activities} live activities, ${n.deliveries} deliveries`;
  } finally {
    db.close();
  }
}
