import type { Dialect } from './dialect';
import type { Statement } from './statement';

/** A parameter: an array is a list parameter (see Dialect.inList). */
export type Param = string | number | boolean | null | undefined | readonly (string | number | null)[];

/**
 * Runs statements written once (statement.ts) on one database: the one implementation of every
 * repository is written against this (src/modules/<feature>/*.repository.ts). On SQLite each call runs at once on
 * the connection and its Promise is already settled (calls keep their order, a unit of work settles
 * within its turn of the event loop); on PostgreSQL it goes to the pool or to the transaction's
 * connection.
 * @example const row = await sql.one(byId, [id]);
 */
export interface Sql {
  readonly dialect: Dialect;
  /** The serving instance whose claims these statements make (PostgreSQL's leases); null elsewhere. */
  readonly owner: string | null;
  all<R>(s: Statement<R>, params?: readonly Param[]): Promise<R[]>;
  one<R>(s: Statement<R>, params?: readonly Param[]): Promise<R | undefined>;
  /** Runs a statement; resolves with how many rows it changed. */
  run(s: Statement<unknown>, params?: readonly Param[]): Promise<number>;
  /**
   * The rows one by one: on SQLite read as the caller iterates (a send to a million devices never
   * holds them all), on PostgreSQL read at once.
   */
  iterate<R>(s: Statement<R>, params?: readonly Param[]): Promise<IterableIterator<R>>;
  /**
   * Several statements as one transaction: inside a unit of work (or another atomic) they join it,
   * otherwise a transaction is opened for them.
   */
  atomic<T>(job: (sql: Sql) => Promise<T>): Promise<T>;
}
