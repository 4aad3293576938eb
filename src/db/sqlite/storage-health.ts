import type { Database } from 'bun:sqlite';
import type { Logger } from '../../lib/logger';

/** SQLite's answer when a write found no space (SQLITE_FULL) or the storage failed (SQLITE_IOERR_*). */
export function isStorageFailure(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'));
}

/** The detail of a 507 answer and of /readyz while writes fail. */
export function storageFailureDetail(error: Error & { code: string }): string {
  return error.code === 'SQLITE_FULL'
    ? 'disk is full: the database cannot store anything more; nothing of this request was stored'
    : `storage I/O error (${error.code}): the database cannot write; nothing of this request was stored`;
}

/**
 * Whether the database can write, as the last write found out. A write that fails for lack of space
 * or an I/O error marks it failing (logged once); the next write that succeeds (an API commit, the
 * delivery worker's outcomes, or the probe /readyz makes at most once a second while failing)
 * clears it (logged with how long it lasted). Nothing needs a restart.
 */
export class StorageHealth {
  private failure: { reason: string; since: number } | undefined;
  private probedAt = 0;

  constructor(
    private readonly client: Database,
    private readonly logger: Logger,
  ) {}

  /** Records a failed write; true when it was a storage failure. */
  failed(error: unknown): boolean {
    if (!isStorageFailure(error)) return false;
    if (!this.failure) {
      this.failure = { reason: storageFailureDetail(error).split(';')[0]!, since: Date.now() };
      this.logger.error('database writes fail: requests that write answer 507 and /readyz 503 until space returns', { code: error.code, error: error.message });
    }
    return true;
  }

  /** A write committed. */
  succeeded(): void {
    if (!this.failure) return;
    this.logger.info('database writes work again', { failedSeconds: Math.round((Date.now() - this.failure.since) / 100) / 10 });
    this.failure = undefined;
  }

  /** Why writes fail, or null when they work. While failing, probes with a small write (at most once a second). */
  check(): string | null {
    if (this.failure && Date.now() - this.probedAt >= 1000) {
      this.probedAt = Date.now();
      this.probe();
    }
    return this.failure?.reason ?? null;
  }

  /** A write that needs new pages and leaves nothing behind: creates a table with a few KB and drops it again. */
  private probe(): void {
    try {
      this.client.transaction(() => {
        this.client.run('CREATE TABLE islet_storage_probe (filler BLOB)');
        this.client.run('INSERT INTO islet_storage_probe VALUES (zeroblob(16384))');
        this.client.run('DROP TABLE islet_storage_probe');
      }).immediate();
      this.succeeded();
    } catch (e) {
      this.failed(e);
    }
  }
}
