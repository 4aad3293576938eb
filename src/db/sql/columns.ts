import type { Param } from './sql';
import { oneOff, type Statement } from './statement';

/**
 * Statements for writing a row object whose fields are some of a table's columns (an insert, a
 * patch). A table is named here by its fields rather than by its drizzle definition, so that a
 * serving process never loads drizzle-orm (only migrations do): the fields are the row type's keys,
 * each one listed (the compiler refuses a missing or unknown field), and a column's name is its
 * field in snake_case, the rule `defineTable` names columns by (db/table.ts).
 */
export interface WritableTable<Row> {
  name: string;
  /** Field → column name. */
  columns: ReadonlyMap<string, string>;
  readonly row?: Row;
}

/** A field's column name: `appId` is `app_id`. */
export const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The table `name` with every field of `Row` (`fields` lists each key once, as `{ id: true, … }`).
 * @example const appsTable = writableTable<AppRow>('apps', { id: true, name: true, … });
 */
export function writableTable<Row>(name: string, fields: Record<keyof Row & string, true>): WritableTable<Row> {
  return { name, columns: new Map(Object.keys(fields).map((field) => [field, snakeCase(field)])) };
}

/** The columns and values of the fields `row` sets (undefined fields left out). */
export function columnsOf<Row>(table: WritableTable<Row>, row: Partial<Row>): { columns: string[]; values: Param[] } {
  const columns: string[] = [];
  const values: Param[] = [];
  for (const [field, value] of Object.entries(row)) {
    const column = table.columns.get(field);
    if (!column || value === undefined) continue;
    columns.push(column);
    values.push(value as Param);
  }
  return { columns, values };
}

/** `INSERT INTO table (…) VALUES (…)` of the fields `row` sets. */
export function insertRow<Row>(table: WritableTable<Row>, row: Partial<Row>): { statement: Statement<unknown>; params: Param[] } {
  const { columns, values } = columnsOf(table, row);
  const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
  return { statement: oneOff(`INSERT INTO ${table.name} (${columns.join(', ')}) VALUES (${placeholders})`), params: values };
}

/**
 * `UPDATE table SET … WHERE <where>` of the fields `patch` sets; `where` uses placeholders from
 * `$1` on, with `whereParams`. Null when the patch sets nothing.
 */
export function updateRow<Row>(
  table: WritableTable<Row>,
  patch: Partial<Row>,
  where: string,
  whereParams: Param[],
): { statement: Statement<unknown>; params: Param[] } | null {
  const { columns, values } = columnsOf(table, patch);
  if (columns.length === 0) return null;
  const n = whereParams.length;
  const set = columns.map((c, i) => `${c} = $${n + i + 1}`).join(', ');
  return { statement: oneOff(`UPDATE ${table.name} SET ${set} WHERE ${where}`), params: [...whereParams, ...values] };
}
