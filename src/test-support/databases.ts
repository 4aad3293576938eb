import { afterAll, beforeAll, describe } from 'bun:test';
import type { TestDatabase } from './harness';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres } from './postgres';
import { setSpawnDatabase } from './spawn-server';

/** Every database Islet serves from; the same tests run on each. */
export const TEST_DATABASES: readonly TestDatabase[] = ['sqlite', 'postgres'];

/**
 * Runs the same tests once per database: `describe(name (sqlite))`, then `describe(name (postgres))`
 * on this test process's PostgreSQL (a database per harness or served process). The body gets the
 * database to pass to createHarness; spawnServer takes it from the block it runs in.
 * @example forEachDatabase('devices', (database) => { test('…', async () => { const h = await createHarness({ database }); … }); });
 */
export function forEachDatabase(name: string, body: (database: TestDatabase) => void): void {
  for (const database of TEST_DATABASES) {
    describe(`${name} (${database})`, () => {
      beforeAll(() => setSpawnDatabase(database));
      afterAll(() => setSpawnDatabase('sqlite'));
      if (database === 'postgres') beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);
      body(database);
    });
  }
}
