import type { Sql } from './sql/sql';

/**
 * A unit of work's executor: the statements of every feature's repository run on it, inside the
 * transaction (on SQLite, the one connection inside the group commit's savepoint; on PostgreSQL,
 * the transaction's connection). Functions that must join their caller's transaction take it as a
 * parameter; each feature names its repository on it (`devicesRepository(tx).find(…)`).
 */
export type Tx = Sql;

/** Whether the database can write, as the last write found out (see sqlite/storage-health.ts). */
export interface StorageStatus {
  /** Records a failed write; true when it was a storage failure (full disk, I/O error). */
  failed(error: unknown): boolean;
  /** A write committed. */
  succeeded(): void;
  /** Why writes fail, or null when they work. */
  check(): string | null;
}

/**
 * The data seam: units of work with an explicit transaction handle. Nothing outside `src/db` and
 * the features' repositories (`src/modules/<feature>/*.repository.ts`) holds a connection or runs SQL.
 * @example await ctx.db.write(async (tx) => { await appsRepository(tx).update(id, patch); await auditRepository(tx).insert(row); });
 */
export interface Store {
  /**
   * Runs `job` in one write transaction and resolves with its result once it is committed; a job
   * that throws leaves nothing behind. The job awaits only statements on `tx`: no network I/O,
   * no timers, no other unit of work (on SQLite the connection's transaction stays open, and
   * nothing else may write on it, while the job waits).
   */
  write<T>(job: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `job` on the store's executor (`sql`) and no transaction, so reads that
   * belong together get no snapshot on either store: each statement sees the database as it is
   * when it runs, and a write landing between two of them shows in the second. SQLite runs them on
   * its one connection, inside the group commit's transaction when one is open (so they may see a
   * unit of work's rows before it commits); PostgreSQL takes a pooled connection per statement and
   * sees committed rows only. Reads that must agree go in `write`. The same rules as `write` for
   * what the job awaits.
   */
  read<T>(job: (sql: Sql) => Promise<T>): Promise<T>;
  /** The executor for a single statement outside a unit of work. */
  readonly sql: Sql;
  /** Whether writes reach the storage. */
  readonly storage: StorageStatus;
  /**
   * Runs `fn` once the unit of work running now (if any) has committed, else at once; never when it
   * rolls back. A wake-up sent inside the job would otherwise reach the worker before the rows are
   * visible (PostgreSQL), or let it claim inside the open transaction on the same connection and
   * send a push whose write then rolls back (SQLite: the job's awaits let the worker's promise
   * chain run in the middle of the group).
   */
  afterCommit(fn: () => void): void;
  /** True when the database answers and every migration shipped with this build is applied. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
