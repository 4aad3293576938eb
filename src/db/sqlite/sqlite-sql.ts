import type { Database, Statement as Prepared } from 'bun:sqlite';
import { sqliteDialect } from '../sql/dialect';
import type { Param, Sql } from '../sql/sql';
import { render, type Statement } from '../sql/statement';

type Row = Record<string, unknown>;
type Bindable = string | number | boolean | null;

/** The store's units of work (the group commit), for `atomic` on the store's own connection. */
export interface SqliteUnitsOfWork {
  /** Whether the caller runs inside a unit of work: its statements join it. */
  inside(): boolean;
  /** Runs `job` as a unit of work of its own, resolving once it is committed. */
  run<T>(job: () => Promise<T>): Promise<T>;
}

/**
 * The statements of the one repository implementation on a SQLite connection. Each runs at once
 * and answers a settled Promise. Module-level statements are prepared once per connection and kept
 * (bun:sqlite's own cache keeps only a few SQL strings); one-offs go through that cache.
 * `atomic` inside a unit of work joins it; outside one, on the store's connection, it is a unit of
 * work of its own in the group commit (not a transaction of its own: while a unit of work of the
 * group awaits, the connection is inside its transaction, and statements run then would be undone
 * with it). On a connection without units of work (the outbox thread's) it opens a transaction
 * (BEGIN IMMEDIATE: the write lock first); its awaits settle within the turn, so nothing else
 * begins meanwhile.
 */
export function sqliteSql(client: Database, units?: SqliteUnitsOfWork): Sql {
  const prepared = new Map<Statement<unknown>, Prepared>();
  const begin = client.prepare('BEGIN IMMEDIATE');
  const commit = client.prepare('COMMIT');
  const rollback = client.prepare('ROLLBACK');

  const prepare = (s: Statement<unknown>): Prepared => {
    if (!s.prepared) return client.query(render(s, sqliteDialect));
    let p = prepared.get(s);
    if (p === undefined) {
      p = client.prepare(render(s, sqliteDialect));
      prepared.set(s, p);
    }
    return p;
  };

  const sql: Sql = {
    dialect: sqliteDialect,
    owner: null,
    all: <R>(s: Statement<R>, params: readonly Param[] = []) => settle(() => read<R>(s, prepare(s).all(...bind(params)) as Row[])),
    one: <R>(s: Statement<R>, params: readonly Param[] = []) =>
      settle(() => {
        const row = prepare(s).get(...bind(params)) as Row | null;
        return row === null ? undefined : readRow<R>(s, row);
      }),
    run: (s, params = []) => settle(() => prepare(s).run(...bind(params)).changes),
    iterate: <R>(s: Statement<R>, params: readonly Param[] = []) =>
      settle(() => {
        const rows = prepare(s).iterate(...bind(params)) as IterableIterator<Row>;
        return s.booleans.length === 0 ? (rows as IterableIterator<R>) : mapped(rows, (row) => readRow<R>(s, row));
      }),
    // Not async: inside a unit of work the job's own Promise is answered as it is (an async
    // function answering a Promise adds two turns of the microtask queue to every outcome batch).
    atomic<T>(job: (sql: Sql) => Promise<T>): Promise<T> {
      if (units) return units.inside() ? settle(() => job(sql)) : units.run(() => job(sql));
      if (client.inTransaction) return settle(() => job(sql));
      return transaction(job);
    },
  };

  /** A transaction of its own on a connection without units of work (the outbox thread's). */
  const transaction = async <T>(job: (sql: Sql) => Promise<T>): Promise<T> => {
    begin.run();
    try {
      const result = await job(sql);
      commit.run();
      return result;
    } catch (error) {
      if (client.inTransaction) rollback.run();
      throw error;
    }
  };
  return sql;
}

/** A synchronous result as a settled Promise (a Promise as it is), or what it threw as a rejected one. */
function settle<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Parameters as bun:sqlite binds them: lists as JSON text (json_each reads them), undefined as NULL. */
function bind(params: readonly Param[]): Bindable[] {
  const out = new Array<Bindable>(params.length);
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    out[i] = p === undefined ? null : Array.isArray(p) ? JSON.stringify(p) : (p as Bindable);
  }
  return out;
}

function read<R>(s: Statement<unknown>, rows: Row[]): R[] {
  if (s.booleans.length > 0) for (const row of rows) readRow(s, row);
  return rows as R[];
}

/** SQLite answers booleans as 0 and 1: the statement's boolean fields become true and false. */
function readRow<R>(s: Statement<unknown>, row: Row): R {
  for (const field of s.booleans) if (row[field] !== null && row[field] !== undefined) row[field] = row[field] === 1 || row[field] === true;
  return row as R;
}

function* mapped<A, B>(rows: IterableIterator<A>, fn: (row: A) => B): IterableIterator<B> {
  for (const row of rows) yield fn(row);
}
