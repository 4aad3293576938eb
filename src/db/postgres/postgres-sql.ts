import { postgresDialect } from '../sql/dialect';
import type { Param, Sql } from '../sql/sql';
import { render, type Statement } from '../sql/statement';
import type { Pg } from './query';

type Row = Record<string, unknown>;

/**
 * The statements of the one repository implementation on PostgreSQL: `q` is the pool (each
 * `atomic` opens its own transaction through `begin`) or one transaction's connection (they join
 * it). Statements are parameterised, so Bun prepares each once per connection.
 */
export function postgresSql(q: Pg, begin: (<T>(job: (tx: Pg) => Promise<T>) => Promise<T>) | undefined, owner: string | null): Sql {
  const sql: Sql = {
    dialect: postgresDialect,
    owner,
    async all<R>(s: Statement<R>, params: readonly Param[] = []) {
      const rows = (await q.unsafe(render(s, postgresDialect), bind(params))) as Row[];
      return (s.numbers.length === 0 ? [...rows] : rows.map((row) => readRow(s, row))) as R[];
    },
    one: async <R>(s: Statement<R>, params: readonly Param[] = []) => (await sql.all<R>(s, params))[0],
    async run(s, params = []) {
      const result = (await q.unsafe(render(s, postgresDialect), bind(params))) as { count?: number | null };
      return Number(result.count ?? 0);
    },
    iterate: async <R>(s: Statement<R>, params: readonly Param[] = []) => (await sql.all<R>(s, params))[Symbol.iterator](),
    atomic: <T>(job: (sql: Sql) => Promise<T>) => (begin ? begin((tx) => job(postgresSql(tx, undefined, owner))) : job(sql)),
  };
  return sql;
}

function bind(params: readonly Param[]): unknown[] {
  return params.map((p) => (p === undefined ? null : p));
}

/** int8 and numeric arrive as strings: the statement's number fields become numbers. */
function readRow(s: Statement<unknown>, row: Row): Row {
  const out: Row = { ...row };
  for (const field of s.numbers) if (out[field] !== null && out[field] !== undefined) out[field] = Number(out[field]);
  return out;
}
