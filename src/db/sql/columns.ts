import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Param } from './sql';
import { oneOff, type Statement } from './statement';

/**
 * Statements for writing a row object whose fields are some of a table's columns (an insert, a
 * patch). The table is the SQLite side of its definition (db/table.ts): both sides name the
 * fields and columns alike.
 */

/** The columns and values of the fields `row` sets (undefined fields left out). */
export function columnsOf(table: SQLiteTable, row: Record<string, unknown>): { columns: string[]; values: Param[] } {
  const columns: string[] = [];
  const values: Param[] = [];
  const known = getTableColumns(table);
  for (const [field, value] of Object.entries(row)) {
    const column = known[field];
    if (!column || value === undefined) continue;
    columns.push(column.name);
    values.push(value as Param);
  }
  return { columns, values };
}

/** `INSERT INTO table (…) VALUES (…)` of the fields `row` sets. */
export function insertRow(table: SQLiteTable, row: Record<string, unknown>): { statement: Statement<unknown>; params: Param[] } {
  const { columns, values } = columnsOf(table, row);
  const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
  return { statement: oneOff(`INSERT INTO ${getTableName(table)} (${columns.join(', ')}) VALUES (${placeholders})`), params: values };
}

/**
 * `UPDATE table SET … WHERE <where>` of the fields `patch` sets; `where` uses placeholders from
 * `$1` on, with `whereParams`. Null when the patch sets nothing.
 */
export function updateRow(
  table: SQLiteTable,
  patch: Record<string, unknown>,
  where: string,
  whereParams: Param[],
): { statement: Statement<unknown>; params: Param[] } | null {
  const { columns, values } = columnsOf(table, patch);
  if (columns.length === 0) return null;
  const n = whereParams.length;
  const set = columns.map((c, i) => `${c} = $${n + i + 1}`).join(', ');
  return { statement: oneOff(`UPDATE ${getTableName(table)} SET ${set} WHERE ${where}`), params: [...whereParams, ...values] };
}
