import { beforeAll, describe, expect, test } from 'bun:test';
import { migratePostgres } from '../../db/postgres/migrate';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { silentLogger } from '../../lib/logger';
import { pgCluster } from './cluster';
import { pgInstances } from './instances';
import { pgLeadership } from './leadership';
import { until } from '../../test-support/eventually';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('live instances on PostgreSQL', () => {
  test("lists the instances whose lease has not lapsed by the database's clock, newest first; the leader is the one holding the lock now", async () => {
    const { url } = await testDatabase();
    await migratePostgres({ url, poolSize: 1 });
    const cluster = pgCluster({ url, poolSize: 1 });
    const leadership = pgLeadership({ url, poolSize: 1 }, 'old', silentLogger);
    try {
      const now = Date.now();
      const row = (id: string, startedAt: number, leaseUntil: number, leader: boolean) =>
        cluster.sql`INSERT INTO cluster_instances (id, host, pid, version, started_at, last_seen, lease_until, leader)
                    VALUES (${id}, 'h', 1, '1.2.3', ${startedAt}, ${now}, ${leaseUntil}, ${leader})`;
      // The heartbeat's column says `new` leads; the lock says `old`, and the lock is right.
      await row('old', now - 60_000, now + 60_000, false);
      await row('new', now - 1_000, now + 60_000, true);
      await row('dead', now - 30_000, now - 1_000, false);
      await leadership.isLeader();
      await until('this instance leads', () => leadership.current(), { intervalMs: 50 });
      const live = await pgInstances(cluster).live();
      expect(live).toEqual([
        { id: 'new', host: 'h', version: '1.2.3', startedAt: now - 1_000, lastSeen: now, leader: false },
        { id: 'old', host: 'h', version: '1.2.3', startedAt: now - 60_000, lastSeen: now, leader: true },
      ]);
    } finally {
      await leadership.release();
      await cluster.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);
});
