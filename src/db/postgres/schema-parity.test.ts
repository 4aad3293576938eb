import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { migrateDatabase, openDatabase } from '../sqlite/database';
import { migratePostgres } from './migrate';
import { modelOfPostgres, modelOfSchema, modelOfSqlite, type SchemaModel } from './schema-model';

/** Every table the `*.tables.ts` files export, found as drizzle-kit finds them (drizzle.config.ts, drizzle-pg.config.ts). */
async function definedTables(): Promise<{ sqlite: SQLiteTable[]; pg: PgTable[] }> {
  const root = join(import.meta.dir, '..', '..', '..');
  const exported: unknown[] = [];
  for (const file of new Bun.Glob('src/**/*.tables.ts').scanSync(root)) exported.push(...Object.values(await import(join(root, file))));
  return { sqlite: exported.filter((t): t is SQLiteTable => is(t, SQLiteTable)), pg: exported.filter((t): t is PgTable => is(t, PgTable)) };
}
const defined = await definedTables();

/** Bounded counters stay `integer` on PostgreSQL; every other SQLite INTEGER (times, ids) is `bigint`. */
const SMALL_INTEGERS = new Set(['attempts', 'attempt', 'version', 'status', 'response_status', 'duration_ms', 'storage_policy', 'expiry_days', 'la_priority10_per_hour', 'la_frequent_priority10_per_hour']);

/** The SQLite schema as PostgreSQL should name it: each column's SQLite type mapped to the pg type chosen for it. */
function asPostgres(model: SchemaModel): SchemaModel {
  const booleans = new Set(
    defined.sqlite.flatMap((t) => {
      const config = getTableConfig(t);
      return config.columns.filter((c) => c.columnType === 'SQLiteBoolean').map((c) => `${config.name}.${c.name}`);
    }),
  );
  const pgType = (table: string, column: string, type: string) =>
    type === 'text' ? 'text' : booleans.has(`${table}.${column}`) ? 'boolean' : SMALL_INTEGERS.has(column) ? 'integer' : 'bigint';
  return Object.fromEntries(
    Object.entries(model).map(([table, t]) => [
      table,
      { ...t, columns: Object.fromEntries(Object.entries(t.columns).map(([name, c]) => [name, { ...c, type: pgType(table, name, c.type) }])) },
    ]),
  );
}

/** PostgreSQL names an identity's sequence and casts defaults; the schema object says neither. */
const withoutPgDecoration = (model: SchemaModel): SchemaModel =>
  Object.fromEntries(
    Object.entries(model).map(([table, t]) => [
      table,
      { ...t, columns: Object.fromEntries(Object.entries(t.columns).map(([n, c]) => [n, { ...c, default: c.default?.replace(/::\w+$/, '') ?? null }])) },
    ]),
  );

/** Columns only several instances on PostgreSQL need (the instance whose lease a claim is under). */
const PG_ONLY_COLUMNS: Record<string, string[]> = {
  deliveries: ['claimed_by'],
  webhook_deliveries: ['claimed_by'],
  idempotency_keys: ['claimed_by'],
  broadcast_ops: ['claimed_by'],
};
const PG_ONLY_INDEXES = ['deliveries_claimed', 'webhook_deliveries_claimed'];

/** The PostgreSQL schema without what only several instances need, to compare with SQLite's. */
function withoutClusterColumns(model: SchemaModel): SchemaModel {
  return Object.fromEntries(
    Object.entries(model).map(([table, t]) => [
      table,
      {
        ...t,
        columns: Object.fromEntries(Object.entries(t.columns).filter(([name]) => !PG_ONLY_COLUMNS[table]?.includes(name))),
        indexes: Object.fromEntries(Object.entries(t.indexes).filter(([name]) => !PG_ONLY_INDEXES.includes(name))),
      },
    ]),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'islet-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('the SQLite and PostgreSQL tables of the definitions', () => {
  const sqlite = modelOfSchema({ ...defined.sqlite });
  const both = modelOfSchema({ ...defined.pg });
  // The tables several instances need have no SQLite twin (coordination/postgres/cluster.tables.ts).
  const pg = Object.fromEntries(Object.entries(both).filter(([name]) => name in sqlite));
  const cluster = Object.fromEntries(Object.entries(both).filter(([name]) => !(name in sqlite)));

  test('have the same tables, columns, types (mapped), defaults, primary keys, indexes with their WHERE, and foreign keys', () => {
    expect(Object.keys(sqlite).length).toBeGreaterThan(15);
    expect(withoutClusterColumns(pg)).toEqual(asPostgres(sqlite));
    // What several instances add is exactly what the lists above name.
    for (const [table, columns] of Object.entries(PG_ONLY_COLUMNS)) for (const c of columns) expect(pg[table]?.columns[c]).toBeDefined();
    expect(Object.keys(cluster).sort()).toEqual(['auth_failures', 'cluster_instances', 'console_sessions', 'shared_state']);
  });

  test('the migrated SQLite database holds what the definitions say', () => {
    const db = openDatabase(join(dir, 'parity.db'));
    try {
      migrateDatabase(db);
      expect(modelOfSqlite(db.$client)).toEqual(sqlite);
    } finally {
      db.$client.close();
    }
  });

  test('the migrated PostgreSQL database holds what the definitions say', async () => {
    const { url } = await testDatabase();
    await migratePostgres({ url, poolSize: 1 });
    const client = new SQL(url, { max: 1 });
    try {
      expect(withoutPgDecoration(await modelOfPostgres(client))).toEqual(both);
    } finally {
      await client.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);
});
