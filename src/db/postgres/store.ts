import { SQL } from 'bun';
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../lib/logger';
import type { Sql } from '../sql/sql';
import type { StorageStatus, Store, Tx } from '../store';
import { clientOptions, type PostgresSettings } from './connection';
import { isPostgresUnavailable, postgresStorageFailure } from './failures';
import { appliedPostgresMigrations, defaultPgMigrationsFolder, migratePostgres } from './migrate';
import type { Pg } from './query';
import { postgresSql } from './postgres-sql';

/**
 * The store on a pool of PostgreSQL connections (Bun's client, `[database] pool_size`). Each
 * `write` is its own transaction on one connection of the pool (no group commit: the server
 * commits transactions side by side), with its statements on that connection. A lost
 * connection fails the units of work that used it (503); the pool connects again on the next use,
 * so service returns by itself once the server is back.
 */
export class PostgresStore implements Store {
  readonly sql: Sql;
  readonly storage: PostgresStorageHealth;
  private migrationsFolder = defaultPgMigrationsFolder();
  /** The after-commit callbacks of the unit of work running in this async context. */
  private readonly pending = new AsyncLocalStorage<(() => void)[]>();

  constructor(
    private readonly settings: PostgresSettings,
    /** The pool, for what only the store does (the storage probe, tests). */
    readonly client: SQL,
    logger: Logger,
    /** The serving instance whose claims its statements make (Sql.owner). */
    private readonly owner: string | null = null,
  ) {
    const begin = <T>(job: (tx: Pg) => Promise<T>) => this.transaction(job);
    this.sql = postgresSql(autocommitRetrying(client), begin, owner);
    this.storage = new PostgresStorageHealth(logger, () => this.probe());
  }

  write<T>(job: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction((tx) => job(postgresSql(tx, undefined, this.owner)));
  }

  async read<T>(job: (sql: Sql) => Promise<T>): Promise<T> {
    return job(this.sql);
  }

  /** Applies every migration not yet applied, under the migration lock (see migrate.ts). */
  async migrate(folder = this.migrationsFolder): Promise<void> {
    this.migrationsFolder = folder;
    await migratePostgres(this.settings, folder);
  }

  async ready(): Promise<boolean> {
    try {
      return (await appliedPostgresMigrations(this.client)) >= shippedCount(this.migrationsFolder);
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.client.close({ timeout: 5 });
  }

  afterCommit(fn: () => void): void {
    const pending = this.pending.getStore();
    if (pending) pending.push(fn);
    else fn();
  }

  /**
   * One transaction; run again (up to CONFLICT_ATTEMPTS) when it lost a race to a concurrent one:
   * on SQLite units of work never overlap, here a check-then-insert of two requests can, and the
   * second's run again sees the first's row and answers as it would have after it. A job awaits
   * only its statements (store.ts), so running it again repeats nothing outside the database.
   */
  private async transaction<T>(job: (tx: Pg) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const after: (() => void)[] = [];
      // Only a transaction that wrote tells that writes work again: one that only read (a claim
      // that found nothing) commits as well while PostgreSQL is out of space.
      let wrote = false;
      try {
        const result = await this.pending.run(after, () => this.begin((tx) => job(watchingWrites(tx, () => (wrote = true)))));
        if (wrote) this.storage.succeeded();
        for (const fn of after) fn();
        return result;
      } catch (e) {
        if (attempt < CONFLICT_ATTEMPTS && isConflict(e)) continue;
        this.storage.failed(e);
        throw e;
      }
    }
  }

  /**
   * One transaction on a connection of its own. BEGIN is sent with the job's first statement
   * rather than awaited alone (Bun pipelines the queries of one connection): a round trip less per
   * unit of work, which PostgreSQL's many small transactions (one per update) pay each time.
   */
  private async begin<T>(job: (tx: Pg) => Promise<T>): Promise<T> {
    const conn = await this.client.reserve();
    try {
      const begun = conn.unsafe('BEGIN').execute();
      // A failed BEGIN fails the job's statements after it, so the job reports it; awaited below.
      begun.catch(() => {});
      try {
        const result = await job(conn);
        await begun;
        await conn.unsafe('COMMIT');
        return result;
      } catch (e) {
        // Nothing to roll back when the connection is gone or COMMIT already ended the transaction.
        await conn.unsafe('ROLLBACK').catch(() => {});
        throw e;
      }
    } finally {
      // Bun closes rather than pools a connection whose transaction is still open (ROLLBACK failed).
      await conn.release();
    }
  }

  /** A small write that leaves nothing behind: whether the server stores again. */
  private async probe(): Promise<void> {
    await this.client.begin(async (tx) => {
      await tx.unsafe('CREATE TEMP TABLE islet_storage_probe (filler text) ON COMMIT DROP');
      await tx.unsafe(`INSERT INTO islet_storage_probe VALUES (repeat('x', 16384))`);
    });
  }
}

const CONFLICT_ATTEMPTS = 5;

/** `tx`, calling `wrote` at the first statement that is not a plain SELECT. */
function watchingWrites(tx: Pg, wrote: () => void): Pg {
  return {
    unsafe(query, values) {
      if (!READ_ONLY.test(query)) wrote();
      return tx.unsafe(query, values);
    },
  };
}
const READ_ONLY = /^\s*SELECT\b/i;
/** Lost races: serialization failure, deadlock, a unique key another transaction took meanwhile. */
const isConflict = (e: unknown) => ['40001', '40P01', '23505'].includes(String((e as { errno?: unknown } | null)?.errno));

/**
 * The pool for single statements outside a unit of work, each its own transaction: one the server
 * chose as a deadlock victim (an app deleted while the worker records its deliveries) or that
 * failed serialization is run again, as `transaction` does for whole units of work.
 */
function autocommitRetrying(client: SQL): Pg {
  return {
    async unsafe(query, values) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await client.unsafe(query, values as never[]);
        } catch (e) {
          const errno = String((e as { errno?: unknown } | null)?.errno);
          if (attempt >= CONFLICT_ATTEMPTS || (errno !== '40P01' && errno !== '40001')) throw e;
        }
      }
    },
  };
}

const shippedCounts = new Map<string, number>();
function shippedCount(folder: string): number {
  let n = shippedCounts.get(folder);
  if (n === undefined) {
    n = (JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;
    shippedCounts.set(folder, n);
  }
  return n;
}

/**
 * Whether PostgreSQL stores writes, as the last write found out: out of space or a lost
 * connection marks it failing (logged once); the next committed write, or the probe /readyz runs
 * a second after the last failure, clears it.
 */
export class PostgresStorageHealth implements StorageStatus {
  private failure: { reason: string; since: number } | undefined;
  private lastEvidenceAt = 0;
  private probing = false;

  constructor(
    private readonly logger: Logger,
    private readonly probe: () => Promise<void>,
  ) {}

  /** Records a failed write; true when PostgreSQL was out of space or unreachable. */
  failed(error: unknown): boolean {
    const full = postgresStorageFailure(error);
    const reason = full ?? (isPostgresUnavailable(error) ? 'PostgreSQL is unreachable' : undefined);
    if (!reason) return false;
    this.lastEvidenceAt = Date.now();
    if (!this.failure) {
      this.failure = { reason, since: Date.now() };
      this.logger.error('database writes fail: requests that write answer 507 (no space) or 503 (unreachable) and /readyz 503 until they work again', {
        reason,
        code: (error as { errno?: string; code?: string }).errno ?? (error as { code?: string }).code,
      });
    }
    return true;
  }

  succeeded(): void {
    if (!this.failure) return;
    this.logger.info('database writes work again', { failedSeconds: Math.round((Date.now() - this.failure.since) / 100) / 10 });
    this.failure = undefined;
  }

  check(): string | null {
    if (this.failure && !this.probing && Date.now() - this.lastEvidenceAt >= 1000) {
      this.lastEvidenceAt = Date.now();
      this.probing = true;
      this.probe().then(
        () => this.succeeded(),
        (e) => this.failed(e),
      ).finally(() => (this.probing = false));
    }
    return this.failure?.reason ?? null;
  }
}

/**
 * A store on the PostgreSQL of `settings`; `migrate` before running statements. `owner`: the
 * serving instance's id, under whose lease its deliveries and keys are claimed.
 * @example const store = openPostgresStore({ url, poolSize: 10 }, logger, coordination.instance.id); await store.migrate();
 */
export function openPostgresStore(settings: PostgresSettings, logger: Logger, owner: string | null = null): PostgresStore {
  return new PostgresStore(settings, new SQL(settings.url, clientOptions(settings)), logger, owner);
}
