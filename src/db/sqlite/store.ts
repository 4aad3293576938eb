import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../../lib/logger';
import type { Sql } from '../sql/sql';
import type { Store, Tx } from '../store';
import { defaultMigrationsFolder, isDatabaseReady, migrateDatabase, openDatabase, type Db } from './database';
import { groupCommit, type Write } from './group-commit';
import { sqliteSql } from './sqlite-sql';
import { StorageHealth } from './storage-health';

export interface SqliteStoreOptions {
  logger: Logger;
  maxSizeMb?: number;
  /** See openDatabase. */
  checkpointPages?: number;
}

/**
 * The store on one SQLite connection: `write` is the group commit (the units of work of one turn
 * of the event loop share a transaction, each in its own savepoint), `read` and `sql` run on the
 * same connection. Statements are prepared on first use, after the migrations.
 */
export class SqliteStore implements Store {
  readonly storage: StorageHealth;
  private readonly group: Write;
  private executor: Sql | undefined;
  private migrationsFolder = defaultMigrationsFolder();
  /** The after-commit callbacks of the unit of work running in this async context. */
  private readonly pending = new AsyncLocalStorage<(() => void)[]>();

  constructor(
    /** The connection, for what only SQLite has (backup, the outbox thread's path) and for tests. */
    readonly sqlite: Db,
    logger: Logger,
  ) {
    this.storage = new StorageHealth(sqlite.$client, logger);
    this.group = groupCommit(sqlite.$client, this.storage);
  }

  get sql(): Sql {
    return (this.executor ??= sqliteSql(this.sqlite.$client, {
      inside: () => this.pending.getStore() !== undefined,
      run: (job) => this.write(job),
    }));
  }

  async write<T>(job: (tx: Tx) => Promise<T>): Promise<T> {
    const after: (() => void)[] = [];
    // The group resolves a job only after its COMMIT, and rejects one whose savepoint rolled back.
    const result = await this.group(() => this.pending.run(after, () => job(this.sql)));
    for (const fn of after) fn();
    return result;
  }

  afterCommit(fn: () => void): void {
    const pending = this.pending.getStore();
    if (pending) pending.push(fn);
    else fn();
  }

  async read<T>(job: (sql: Sql) => Promise<T>): Promise<T> {
    return job(this.sql);
  }

  /** Applies every migration not yet applied (from `folder`, remembered for `ready`). */
  migrate(folder = this.migrationsFolder): void {
    this.migrationsFolder = folder;
    migrateDatabase(this.sqlite, folder);
  }

  async ready(): Promise<boolean> {
    return isDatabaseReady(this.sqlite, this.migrationsFolder);
  }

  async close(): Promise<void> {
    this.sqlite.$client.close();
  }
}

/**
 * Opens (creating if needed) the SQLite file as a store; `migrate` before running statements.
 * @example const store = openSqliteStore('data/islet.db', { logger }); store.migrate();
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(openDatabase(path, { maxSizeMb: options.maxSizeMb, checkpointPages: options.checkpointPages }), options.logger);
}
