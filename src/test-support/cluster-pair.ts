import { migratePostgres } from '../db/postgres/migrate';
import { pgCluster, type PgCluster } from '../coordination/postgres/cluster';
import { testDatabase } from './postgres';

/**
 * Two instances' cluster handles on one new, migrated database of the test process's PostgreSQL (or `database`):
 * what a piece of the PostgreSQL coordination is tested with (`a` writes, `b` must see it).
 * @example beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS); const { a, b, close } = await clusterPair(); … await close();
 */
export async function clusterPair(database?: { url: string }): Promise<{ a: PgCluster; b: PgCluster; url: string; close(): Promise<void> }> {
  const { url } = database ?? (await testDatabase());
  const settings = { url, poolSize: 4 };
  await migratePostgres(settings);
  const a = pgCluster(settings);
  const b = pgCluster(settings);
  return { a, b, url, close: async () => void (await Promise.all([a.close(), b.close()])) };
}
