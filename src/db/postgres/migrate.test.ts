import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SQL } from 'bun';
import { nextReleaseMigrations } from '../../test-support/next-release';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { appliedPostgresMigrations, defaultPgMigrationsFolder, migratePostgres } from './migrate';
import { until } from '../../test-support/eventually';

const shipped = (JSON.parse(readFileSync(join(defaultPgMigrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('PostgreSQL migrations', () => {
  test('two instances migrating one empty database at once both succeed, and each migration is applied once', async () => {
    const { url } = await testDatabase();
    await Promise.all([migratePostgres({ url, poolSize: 1 }), migratePostgres({ url, poolSize: 1 })]);
    const client = new SQL(url, { max: 1 });
    try {
      const rows: { hash: string; n: number }[] = await client`SELECT hash, count(*)::int AS n FROM drizzle.__drizzle_migrations GROUP BY hash`;
      expect(rows.length).toBe(shipped);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(await appliedPostgresMigrations(client)).toBe(shipped);
      // The lock was given back: nothing is left holding it.
      const [locks] = await client`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`;
      expect(locks.n).toBe(0);
    } finally {
      await client.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('migrating again applies nothing; a database never migrated counts none', async () => {
    const { url } = await testDatabase();
    const client = new SQL(url, { max: 1 });
    try {
      expect(await appliedPostgresMigrations(client)).toBe(0);
      await migratePostgres({ url, poolSize: 1 });
      await migratePostgres({ url, poolSize: 1 });
      expect(await appliedPostgresMigrations(client)).toBe(shipped);
    } finally {
      await client.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('a migration that deadlocks with an instance serving meanwhile (a rolling upgrade) is tried again and applied', async () => {
    const { url } = await testDatabase();
    await migratePostgres({ url, poolSize: 1 });
    // The next release adds a column to devices, then one to deliveries.
    const next = nextReleaseMigrations(['ALTER TABLE "devices" ADD COLUMN "next_a" text;', 'ALTER TABLE "deliveries" ADD COLUMN "next_b" text;']);
    const serving = new SQL(url, { max: 1 });
    const watcher = new SQL(url, { max: 1 });
    const waitingFor = async (table: string) =>
      ((await watcher`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = ${table} AND NOT l.granted`)[0].n as number) > 0;
    try {
      // A statement of the running release takes deliveries, then reads devices (as a delivery
      // claim does): it reaches devices only once the migration holds devices and waits for deliveries.
      const { promise: holding, resolve: held } = Promise.withResolvers<void>();
      const statement = serving.begin(async (tx) => {
        await tx`LOCK TABLE deliveries IN ROW EXCLUSIVE MODE`;
        held();
        await until('the migration waits for deliveries', () => waitingFor('deliveries'), { intervalMs: 20 });
        await tx`SELECT count(*) FROM devices`;
      });
      await holding;
      await migratePostgres({ url, poolSize: 1 }, next);
      await statement;
      const columns = await watcher`SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE column_name IN ('next_a', 'next_b') ORDER BY 1`;
      expect(columns.map((r: { c: string }) => r.c)).toEqual(['deliveries.next_b', 'devices.next_a']);
      const [locks] = await watcher`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`;
      expect(locks.n).toBe(0);
    } finally {
      await serving.close();
      await watcher.close();
      rmSync(dirname(next), { recursive: true, force: true });
    }
  }, POSTGRES_TEST_TIMEOUT_MS);
});
