/**
 * What differs between the two databases in a statement written once: a handful of fragments.
 * Statements use PostgreSQL's numbered placeholders (`$1`, a number may repeat); SQLite reads them
 * as `?1`. Everything else (upserts with ON CONFLICT, RETURNING, CASE, COALESCE, aliases in double
 * quotes) is the same text on both.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * `expr` is one of the values of the array parameter `param`. SQLite gets the array as JSON text
   * (the executor turns array parameters into JSON), PostgreSQL as an array of `type`.
   */
  inList(expr: string, param: string, type?: 'text' | 'bigint'): string;
  /** `expr` is none of the values of the array parameter `param` (see inList). */
  notInList(expr: string, param: string, type?: 'text' | 'bigint'): string;
  /** The larger of two values: SQLite's two-argument `max`, PostgreSQL's `GREATEST`. */
  greatest(a: string, b: string): string;
  /** The smaller of two values: SQLite's two-argument `min`, PostgreSQL's `LEAST`. */
  least(a: string, b: string): string;
  /** `a` equals `b`, NULL equal to NULL: SQLite's `IS`, PostgreSQL's `IS NOT DISTINCT FROM`. */
  same(a: string, b: string): string;
  /**
   * A parameter PostgreSQL cannot infer a type for (`$4 IS NULL`, a value only compared with
   * another parameter): cast there, plain on SQLite.
   */
  typed(param: string, type: 'bigint' | 'text' | 'boolean' | 'integer'): string;
  /** A boolean literal: SQLite stores booleans as 0 and 1. */
  bool(value: boolean): string;
  /**
   * Milliseconds since the epoch by the database server's clock (PostgreSQL's moves within a
   * transaction too): leases compared with it mean the same to instances whose hosts' clocks differ.
   */
  readonly nowMs: string;
  /**
   * Row locks a SELECT ends with. PostgreSQL: `FOR UPDATE` (a concurrent writer waits until this
   * transaction ends), `FOR SHARE` (readers that hold do not wait for each other, writers do),
   * `FOR UPDATE SKIP LOCKED` (rows another transaction holds are passed over: claims). SQLite:
   * nothing, its one writer (BEGIN IMMEDIATE) already serializes them.
   */
  readonly forUpdate: string;
  readonly forShare: string;
  readonly skipLocked: string;
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  inList: (expr, param) => `${expr} IN (SELECT value FROM json_each(${param}))`,
  notInList: (expr, param) => `${expr} NOT IN (SELECT value FROM json_each(${param}))`,
  greatest: (a, b) => `max(${a}, ${b})`,
  least: (a, b) => `min(${a}, ${b})`,
  same: (a, b) => `${a} IS ${b}`,
  typed: (param) => param,
  bool: (value) => (value ? '1' : '0'),
  nowMs: `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`,
  forUpdate: '',
  forShare: '',
  skipLocked: '',
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  inList: (expr, param, type = 'text') => `${expr} = ANY(${param}::${type}[])`,
  notInList: (expr, param, type = 'text') => `NOT (${expr} = ANY(${param}::${type}[]))`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  least: (a, b) => `LEAST(${a}, ${b})`,
  same: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  typed: (param, type) => `${param}::${type}`,
  bool: (value) => (value ? 'true' : 'false'),
  nowMs: '(extract(epoch from clock_timestamp()) * 1000)::bigint',
  forUpdate: ' FOR UPDATE',
  forShare: ' FOR SHARE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
};
