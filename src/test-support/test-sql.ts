import type { AppContext } from '../context';
import { PostgresStore } from '../db/postgres/store';
import { SqliteStore } from '../db/sqlite/store';

/**
 * What a test reads straight from the database it runs on, SQLite or PostgreSQL: one query written
 * for both (`?` placeholders, aliases in double quotes); count(*) and other integer results come
 * back as numbers on both.
 * @example const [{ n }] = await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM activities');
 */
export async function testRows<T>(ctx: AppContext, text: string, params: (string | number | null)[] = []): Promise<T[]> {
  if (ctx.db instanceof SqliteStore) return ctx.db.sqlite.$client.query<T, (string | number | null)[]>(text).all(...params);
  if (!(ctx.db instanceof PostgresStore)) throw new Error('testRows: an unknown store');
  let n = 0;
  const rows = (await ctx.db.client.unsafe(text.replace(/\?/g, () => `$${++n}`), params)) as Record<string, unknown>[];
  // int8 (count, bigint columns) arrives as a string of digits: the SQLite side gives numbers.
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) && /^(n|id|.*At|.*Id)$/.test(k) ? Number(v) : v])) as T);
}
