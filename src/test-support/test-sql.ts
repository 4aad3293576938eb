import type { AppContext } from '../context';
import { PostgresStore } from '../db/postgres/store';
import { SqliteStore } from '../db/sqlite/store';

/**
 * What a test reads straight from the database it runs on, SQLite or PostgreSQL: one query written
 * for both (`?` placeholders, aliases in double quotes); count(*) and other integer results come
 * back as numbers on both when `numbers` names them (default: `n` and `id`).
 * @example const [{ n }] = await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM activities');
 */
export async function testRows<T>(ctx: AppContext, text: string, params: (string | number | null)[] = [], numbers: readonly string[] = ['n', 'id']): Promise<T[]> {
  if (ctx.db instanceof SqliteStore) return ctx.db.sqlite.$client.query<T, (string | number | null)[]>(text).all(...params);
  if (!(ctx.db instanceof PostgresStore)) throw new Error('testRows: an unknown store');
  let n = 0;
  const rows = (await ctx.db.client.unsafe(text.replace(/\?/g, () => `$${++n}`), params)) as Record<string, unknown>[];
  // int8 (count(*), bigint columns) arrives as a string: `numbers` names the fields SQLite gives as numbers.
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && numbers.includes(k) ? Number(v) : v])) as T);
}

/** Makes every insert into `table` fail (as a failure midway through a unit of work would), on either database. */
export async function failInserts(ctx: AppContext, table: string): Promise<void> {
  if (ctx.db instanceof SqliteStore) {
    ctx.db.sqlite.$client.run(`CREATE TRIGGER ${table}_down BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    return;
  }
  await testRows(ctx, `CREATE FUNCTION ${table}_down() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk I/O error'; END $$`);
  await testRows(ctx, `CREATE TRIGGER ${table}_down BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_down()`);
}
