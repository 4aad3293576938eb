import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { drizzle as drizzleSqlite } from 'drizzle-orm/bun-sqlite';
import { migrate as drizzleSqliteMigrate } from 'drizzle-orm/bun-sqlite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/bun-sql';
import { migrate as drizzlePgMigrate } from 'drizzle-orm/bun-sql/migrator';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../test-support/postgres';
import { defaultPgMigrationsFolder, migratePostgres } from './postgres/migrate';
import { defaultMigrationsFolder } from './sqlite/database';
import { applyMigrations } from './sqlite/migrate';

// Islet applies drizzle-kit's migrations itself (migrations.ts) so that drizzle-orm stays out of
// the serving process: the databases and records it leaves must be those drizzle-orm's migrator
// leaves, from empty and from a database drizzle-orm migrated part of the way (every install before).

const dir = mkdtempSync(join(tmpdir(), 'islet-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of `folder` whose journal lists only its first `count` migrations (an older release). */
function firstMigrations(folder: string, count: number): string {
  const copy = mkdtempSync(join(dir, 'release-'));
  cpSync(folder, copy, { recursive: true });
  const journalPath = join(copy, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return copy;
}

const half = (folder: string) => Math.floor((JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length / 2);

describe('SQLite: migrations applied as drizzle-orm applies them', () => {
  const folder = defaultMigrationsFolder();
  const state = (db: Database) => ({
    // Compared without layout: drizzle-orm's CREATE of its record spans lines, ours does not.
    schema: db
      .query<{ sql: string | null }, []>('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')
      .all()
      .map((row) => ({ ...row, sql: row.sql?.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')') })),
    record: db.query('SELECT id, hash, created_at FROM __drizzle_migrations ORDER BY id').all(),
  });
  const open = (name: string) => new Database(join(dir, name), { create: true, strict: true });

  test('from empty: the same schema and the same record of migrations', () => {
    const ours = open('ours.db');
    const theirs = open('theirs.db');
    applyMigrations(ours, folder);
    drizzleSqliteMigrate(drizzleSqlite({ client: theirs }), { migrationsFolder: folder });
    const expected = state(theirs);
    expect(expected.record.length).toBeGreaterThan(20);
    expect(state(ours)).toEqual(expected);
    // Again: nothing more applied or recorded.
    applyMigrations(ours, folder);
    expect(state(ours)).toEqual(expected);
  });

  test("finishing a database drizzle-orm migrated to an older release ends where drizzle-orm's would", () => {
    const older = firstMigrations(folder, half(folder));
    const ours = open('upgraded-ours.db');
    const theirs = open('upgraded-theirs.db');
    for (const db of [ours, theirs]) drizzleSqliteMigrate(drizzleSqlite({ client: db }), { migrationsFolder: older });
    const before = state(ours).record.length;
    applyMigrations(ours, folder);
    drizzleSqliteMigrate(drizzleSqlite({ client: theirs }), { migrationsFolder: folder });
    expect(state(ours).record.length).toBeGreaterThan(before);
    expect(state(ours)).toEqual(state(theirs));
  });
});

describe('PostgreSQL: migrations applied as drizzle-orm applies them', () => {
  beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);
  const folder = defaultPgMigrationsFolder();
  const state = async (client: SQL) => ({
    columns: await client`SELECT table_name, column_name, data_type, column_default, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
    indexes: await client`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`,
    constraints: await client`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1`,
    record: await client`SELECT id, hash, created_at FROM drizzle.__drizzle_migrations ORDER BY id`,
  });
  const drizzleMigrate = async (url: string, migrationsFolder: string) => {
    const client = new SQL(url, { max: 1 });
    try {
      await drizzlePgMigrate(drizzlePg({ client }), { migrationsFolder });
    } finally {
      await client.close();
    }
  };
  const compare = async (ours: string, theirs: string) => {
    const a = new SQL(ours, { max: 1 });
    const b = new SQL(theirs, { max: 1 });
    try {
      const expected = await state(b);
      expect(expected.record.length).toBeGreaterThan(10);
      expect(await state(a)).toEqual(expected);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  };

  test(
    'from empty: the same schema and the same record of migrations',
    async () => {
      const [ours, theirs] = await Promise.all([testDatabase(), testDatabase()]);
      await migratePostgres({ url: ours.url, poolSize: 1 });
      await drizzleMigrate(theirs.url, folder);
      await compare(ours.url, theirs.url);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    "finishing a database drizzle-orm migrated to an older release ends where drizzle-orm's would",
    async () => {
      const older = firstMigrations(folder, half(folder));
      const [ours, theirs] = await Promise.all([testDatabase(), testDatabase()]);
      await Promise.all([drizzleMigrate(ours.url, older), drizzleMigrate(theirs.url, older)]);
      await migratePostgres({ url: ours.url, poolSize: 1 });
      await drizzleMigrate(theirs.url, folder);
      await compare(ours.url, theirs.url);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
