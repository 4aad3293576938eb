/**
 * One shape for "what a schema holds" (tables, columns, types, primary keys, indexes, foreign
 * keys), read from drizzle tables or from a migrated database of either dialect, so
 * schema-parity.test.ts can compare the four. Types are named as each dialect names them.
 */
import type { Database } from 'bun:sqlite';
import type { SQL as BunSQL } from 'bun';
import { is, SQL } from 'drizzle-orm';
import { getTableConfig as pgTableConfig, PgDialect, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteSyncDialect, SQLiteTable } from 'drizzle-orm/sqlite-core';

export interface ColumnModel {
  type: string;
  notNull: boolean;
  default: string | null;
  identity: boolean;
}
export interface IndexModel {
  columns: string[];
  unique: boolean;
  where: string | null;
}
export interface TableModel {
  columns: Record<string, ColumnModel>;
  primaryKey: string[];
  indexes: Record<string, IndexModel>;
  /** `a,b -> table(x,y) on delete cascade`, sorted. */
  foreignKeys: string[];
}
export type SchemaModel = Record<string, TableModel>;

/** A partial index's predicate without what each dialect adds when it prints it (casts, parentheses). */
export const normalizeWhere = (where: string | null | undefined): string | null =>
  where ? where.replace(/::[a-z ]+/g, '').replace(/[()]/g, '').replace(/\s+/g, ' ').trim() : null;

const fk = (columns: string[], table: string, foreignColumns: string[], onDelete: string | undefined) =>
  `${columns.join(',')} -> ${table}(${foreignColumns.join(',')}) on delete ${(onDelete ?? 'no action').toLowerCase()}`;

const sorted = <T>(entries: [string, T][]): Record<string, T> => Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));

/** The model of drizzle tables of either dialect (a module's exports, or a list). */
export function modelOfSchema(schema: Record<string, unknown>): SchemaModel {
  const tables: [string, TableModel][] = [];
  for (const table of Object.values(schema)) {
    if (is(table, SQLiteTable)) tables.push(modelOfTable(sqliteTableConfig(table), new SQLiteSyncDialect()));
    else if (is(table, PgTable)) tables.push(modelOfTable(pgTableConfig(table), new PgDialect()));
  }
  return sorted(tables);
}

type AnyConfig = ReturnType<typeof sqliteTableConfig> | ReturnType<typeof pgTableConfig>;
function modelOfTable(config: AnyConfig, dialect: SQLiteSyncDialect | PgDialect): [string, TableModel] {
  const columns = config.columns.map((c): [string, ColumnModel] => [
    c.name,
    {
      type: c.getSQLType(),
      notNull: c.notNull,
      default: c.default === undefined ? null : String(c.default),
      identity: ('autoIncrement' in c && c.autoIncrement === true) || ('generatedIdentity' in c && c.generatedIdentity !== undefined),
    },
  ]);
  const primaryKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  const indexes = config.indexes.map((i): [string, IndexModel] => {
    const where = i.config.where as SQL | undefined;
    return [
      i.config.name!,
      {
        columns: (i.config.columns as { name: string }[]).map((c) => c.name),
        unique: i.config.unique,
        where: normalizeWhere(where ? dialect.sqlToQuery(where).sql : null),
      },
    ];
  });
  const foreignKeys = config.foreignKeys
    .map((f) => {
      const ref = f.reference();
      const target = is(ref.foreignTable, PgTable) ? pgTableConfig(ref.foreignTable).name : sqliteTableConfig(ref.foreignTable as SQLiteTable).name;
      return fk(ref.columns.map((c) => c.name), target, ref.foreignColumns.map((c) => c.name), f.onDelete);
    })
    .sort();
  return [config.name, { columns: sorted(columns), primaryKey, indexes: sorted(indexes), foreignKeys }];
}

/** The model of a migrated SQLite database (drizzle's own table left out). */
export function modelOfSqlite(client: Database): SchemaModel {
  const tables = client
    .query<{ name: string; sql: string }, []>(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'`)
    .all();
  return sorted(
    tables.map(({ name, sql }): [string, TableModel] => {
      const info = client.query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }, []>(`PRAGMA table_info("${name}")`).all();
      const columns = info.map((c): [string, ColumnModel] => [
        c.name,
        {
          type: c.type.toLowerCase(),
          // SQLite lets an INTEGER PRIMARY KEY be declared without NOT NULL; it is never null.
          notNull: c.notnull === 1 || (c.pk > 0 && c.type === 'INTEGER' && info.filter((x) => x.pk > 0).length === 1),
          default: c.dflt_value,
          identity: c.pk > 0 && /AUTOINCREMENT/i.test(sql),
        },
      ]);
      const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const indexList = client.query<{ name: string; unique: number; origin: string }, []>(`PRAGMA index_list("${name}")`).all();
      const indexes = indexList
        .filter((i) => i.origin === 'c')
        .map((i): [string, IndexModel] => {
          const definition = client.query<{ sql: string }, [string]>(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).get(i.name)!.sql;
          const cols = client.query<{ name: string }, []>(`PRAGMA index_info("${i.name}")`).all();
          return [i.name, { columns: cols.map((c) => c.name), unique: i.unique === 1, where: normalizeWhere(/\bWHERE\b(.*)$/is.exec(definition)?.[1]) }];
        });
      const refs = client.query<{ id: number; table: string; from: string; to: string; on_delete: string }, []>(`PRAGMA foreign_key_list("${name}")`).all();
      const foreignKeys = [...new Set(refs.map((r) => r.id))]
        .map((id) => {
          const parts = refs.filter((r) => r.id === id);
          return fk(parts.map((p) => p.from), parts[0]!.table, parts.map((p) => p.to), parts[0]!.on_delete);
        })
        .sort();
      return [name, { columns: sorted(columns), primaryKey, indexes: sorted(indexes), foreignKeys }];
    }),
  );
}

/** The model of a migrated PostgreSQL database's public schema. */
export async function modelOfPostgres(client: BunSQL): Promise<SchemaModel> {
  const columns: { table: string; name: string; type: string; nullable: string; dflt: string | null; identity: string }[] = await client`
    SELECT table_name AS table, column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt, is_identity AS identity
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  const indexes: { table: string; name: string; unique: boolean; primary: boolean; columns: string[]; where: string | null }[] = await client`
    SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
      array(SELECT a.attname::text FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
      pg_get_expr(x.indpred, x.indrelid) AS where
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
    WHERE s.nspname = 'public'`;
  const fks: { table: string; columns: string[]; target: string; targetColumns: string[]; onDelete: string }[] = await client`
    SELECT t.relname AS table, f.relname AS target,
      array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
      array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS "targetColumns",
      CASE c.confdeltype WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'd' THEN 'set default' WHEN 'r' THEN 'restrict' ELSE 'no action' END AS "onDelete"
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid JOIN pg_namespace s ON s.oid = t.relnamespace
    WHERE c.contype = 'f' AND s.nspname = 'public'`;
  const names = [...new Set(columns.map((c) => c.table))];
  return sorted(
    names.map((table): [string, TableModel] => [
      table,
      {
        columns: sorted(
          columns
            .filter((c) => c.table === table)
            .map((c): [string, ColumnModel] => [c.name, { type: c.type, notNull: c.nullable === 'NO', default: c.dflt, identity: c.identity === 'YES' }]),
        ),
        primaryKey: indexes.find((i) => i.table === table && i.primary)?.columns ?? [],
        indexes: sorted(
          indexes.filter((i) => i.table === table && !i.primary).map((i): [string, IndexModel] => [i.name, { columns: i.columns, unique: i.unique, where: normalizeWhere(i.where) }]),
        ),
        foreignKeys: fks
          .filter((f) => f.table === table)
          .map((f) => fk(f.columns, f.target, f.targetColumns, f.onDelete))
          .sort(),
      },
    ]),
  );
}
