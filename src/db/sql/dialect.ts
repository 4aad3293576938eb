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
};
