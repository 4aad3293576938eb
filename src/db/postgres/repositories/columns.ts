import { getTableColumns } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/** The columns and values of the fields `row` sets (undefined fields left out), named as the table's columns. */
export function setClause(table: PgTable, row: Record<string, unknown>): { columns: string[]; values: unknown[] } {
  const columns: string[] = [];
  const values: unknown[] = [];
  const known = getTableColumns(table);
  for (const [field, value] of Object.entries(row)) {
    const column = known[field];
    if (!column || value === undefined) continue;
    columns.push(column.name);
    values.push(value);
  }
  return { columns, values };
}
