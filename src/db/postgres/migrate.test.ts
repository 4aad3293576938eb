import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { appliedPostgresMigrations, defaultPgMigrationsFolder, migratePostgres } from './migrate';

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
});
