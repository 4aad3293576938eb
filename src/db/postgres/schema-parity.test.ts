import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { migrateDatabase, openDatabase } from '../sqlite/database';
import * as sqliteSchema from '../schema';
import { migratePostgres } from './migrate';
import * as pgSchema from './schema';
import { modelOfPostgres, modelOfSchema, modelOfSqlite, type SchemaModel } from './schema-model';

/** Bounded counters stay `integer` on PostgreSQL; every other SQLite INTEGER (times, ids) is `bigint`. */
const SMALL_INTEGERS = new Set(['attempts', 'attempt', 'version', 'status', 'response_status', 'duration_ms', 'storage_policy']);

/** The SQLite schema as PostgreSQL should name it: each column's SQLite type mapped to the pg type chosen for it. */
function asPostgres(model: SchemaModel): SchemaModel {
  const booleans = new Set(
    Object.values(sqliteSchema).flatMap((t) => {
      const config = getTableConfig(t as Parameters<typeof getTableConfig>[0]);
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

const dir = mkdtempSync(join(tmpdir(), 'islet-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('the SQLite and PostgreSQL schemas', () => {
  const sqlite = modelOfSchema(sqliteSchema);
  const pg = modelOfSchema(pgSchema);

  test('have the same tables, columns, types (mapped), defaults, primary keys, indexes with their WHERE, and foreign keys', () => {
    expect(Object.keys(sqlite).length).toBeGreaterThan(15);
    expect(pg).toEqual(asPostgres(sqlite));
  });

  test('the migrated SQLite database holds what its schema object says', () => {
    const db = openDatabase(join(dir, 'parity.db'));
    try {
      migrateDatabase(db);
      expect(modelOfSqlite(db.$client)).toEqual(sqlite);
    } finally {
      db.$client.close();
    }
  });

  test('the migrated PostgreSQL database holds what its schema object says', async () => {
    const { url } = await testDatabase();
    await migratePostgres({ url, poolSize: 1 });
    const client = new SQL(url, { max: 1 });
    try {
      expect(withoutPgDecoration(await modelOfPostgres(client))).toEqual(pg);
    } finally {
      await client.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);
});
