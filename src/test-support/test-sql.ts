import type { AppContext } from '../context';
import { PostgresStore } from '../db/postgres/store';
import { SqliteStore } from '../db/sqlite/store';

/** PostgreSQL's int8 and numeric (count(*), bigint columns, sums), which Bun's SQL client gives as strings. */
const WIDE_NUMBERS = new Set([20, 1700]);

/**
 * What a test reads straight from the database it runs on, SQLite or PostgreSQL: one query written
 * for both (`?` placeholders, aliases in double quotes); int8 and numeric results (count(*), bigint
 * columns) come back as numbers on both, as SQLite gives them.
 * @example const [{ n }] = await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM activities');
 */
export async function testRows<T>(ctx: AppContext, text: string, params: (string | number | null)[] = []): Promise<T[]> {
  if (ctx.db instanceof SqliteStore) return ctx.db.sqlite.$client.query<T, (string | number | null)[]>(text).all(...params);
  if (!(ctx.db instanceof PostgresStore)) throw new Error('testRows: an unknown store');
  let n = 0;
  const result = await ctx.db.client.unsafe<Record<string, unknown>[]>(text.replace(/\?/g, () => `$${++n}`), params);
  // Told by the column's type, not its name: a text id such as 'la_1' stays a string.
  const wide = new Set((result.columns ?? []).filter((c) => WIDE_NUMBERS.has(c.type)).map((c) => c.name));
  return result.map(
    (row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && wide.has(k) ? Number(v) : v])) as T,
  );
}

/**
 * Makes every insert into `table` fail (as a failure midway through a unit of work would), on either
 * database; `when`, a condition on the new row (`NEW.device_id = 'd1'`), narrows it to some rows.
 */
export async function failInserts(ctx: AppContext, table: string, when?: string): Promise<void> {
  if (ctx.db instanceof SqliteStore) {
    ctx.db.sqlite.$client.run(`CREATE TRIGGER ${table}_down BEFORE INSERT ON ${table} ${when ? `WHEN ${when}` : ''} BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    return;
  }
  await testRows(ctx, `CREATE FUNCTION ${table}_down() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk I/O error'; END $$`);
  await testRows(ctx, `CREATE TRIGGER ${table}_down BEFORE INSERT ON ${table} FOR EACH ROW ${when ? `WHEN (${when})` : ''} EXECUTE FUNCTION ${table}_down()`);
}
