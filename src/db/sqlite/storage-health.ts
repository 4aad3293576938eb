import type { Database } from 'bun:sqlite';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
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
 * or an I/O error marks it failing at once (logged once); the next write that succeeds (an API
 * commit, the delivery worker's outcomes, or the probe /readyz makes while failing) clears it
 * (logged with how long it lasted). Nothing needs a restart. The probe waits a second after the
 * last failed write or probe: a small write can still fit where the refused one did not (pages the
 * rolled-back write left in the WAL), and must not clear the failure the moment it was found.
 */
export class StorageHealth {
  private failure: { reason: string; since: number; full: boolean } | undefined;
  /** When a write last failed or the probe last ran. */
  private lastEvidenceAt = 0;

  constructor(
    private readonly client: Database,
    private readonly logger: Logger,
  ) {}

  /** Records a failed write; true when it was a storage failure. */
  failed(error: unknown): boolean {
    if (!isStorageFailure(error)) return false;
    this.lastEvidenceAt = Date.now();
    if (!this.failure) {
      this.failure = { reason: storageFailureDetail(error).split(';')[0]!, since: Date.now(), full: error.code === 'SQLITE_FULL' };
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

  /** Why writes fail, or null when they work. While failing, probes with a small write (a second after the last failure or probe). */
  check(): string | null {
    if (this.failure && Date.now() - this.lastEvidenceAt >= PROBE_AFTER_MS) {
      this.lastEvidenceAt = Date.now();
      this.probe();
    }
    return this.failure?.reason ?? null;
  }

  /**
   * A write that needs new pages and leaves nothing behind (a table with a few KB, dropped again),
   * and, on a file system that was full, room for more than that: a small write may fit into the
   * WAL space the refused ones left while the file system still has no room.
   */
  private probe(): void {
    try {
      this.client.transaction(() => {
        this.client.run('CREATE TABLE islet_storage_probe (filler BLOB)');
        this.client.run('INSERT INTO islet_storage_probe VALUES (zeroblob(16384))');
        this.client.run('DROP TABLE islet_storage_probe');
      }).immediate();
      if (this.failure?.full && freeBytes(this.client.filename) < MIN_FREE_BYTES) return;
      this.succeeded();
    } catch (e) {
      this.failed(e);
    }
  }
}

const PROBE_AFTER_MS = 1000;
/** The free space a full file system must have again before the probe says writes work. */
const MIN_FREE_BYTES = 1024 * 1024;

/** Free bytes on the file system of the database file; Infinity when it has none (in memory) or cannot tell. */
function freeBytes(file: string): number {
  if (!file || file === ':memory:') return Number.POSITIVE_INFINITY;
  try {
    const fs = statfsSync(dirname(file));
    return Number(fs.bavail) * Number(fs.bsize);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
