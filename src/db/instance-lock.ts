import { Database } from 'bun:sqlite';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export interface InstanceLock {
  release(): void;
}

/**
 * Marks a database as in use by a server: an exclusive SQLite lock on `<database>.lock`, held as
 * long as the server runs. It is a POSIX advisory lock, so the kernel drops it when the process
 * ends in any way (even SIGKILL or a crash): no stale pid file to clean up, and it works inside a
 * FROM-scratch container, where `podman exec` processes see the same file. `serve` takes it (a
 * second server on the same file would send every push twice); `restore` needs it to be free.
 * Returns undefined when another process holds it.
 * @example const lock = tryInstanceLock('data/islet.db'); if (!lock) throw …; … lock.release();
 */
export function tryInstanceLock(databasePath: string): InstanceLock | undefined {
  if (databasePath === ':memory:') return { release() {} };
  const path = `${databasePath}.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Made 0600 before SQLite opens it: SQLite gives its -journal the file's permissions.
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const db = new Database(path, { create: true });
  try {
    db.exec('PRAGMA busy_timeout = 0');
    // In exclusive locking mode the lock the first transaction takes is kept until close.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch {
    db.close();
    return undefined;
  }
  return { release: () => db.close() };
}
