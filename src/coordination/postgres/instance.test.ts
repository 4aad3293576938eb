import { SQL } from 'bun';
import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import type { PostgresSettings } from '../../db/postgres/connection';
import { INSTANCE_LOCK_KEY } from '../../db/postgres/instance-lock';
import { migratePostgres } from '../../db/postgres/migrate';
import { createLogger } from '../../lib/logger';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { describeCoordinationContract } from '../../test-support/coordination-contract';
import type { InstanceLease } from '../coordination';
import { postgresCoordination } from '../postgres';
import { pgCluster } from './cluster';
import { until } from '../../test-support/eventually';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

/** An instance of the PostgreSQL coordination on `settings` (a fresh database unless given), with its log lines. */
function instance(settings: PostgresSettings, leaseMs = 10_000) {
  const logs: string[] = [];
  const cluster = pgCluster(settings);
  const coordination = postgresCoordination(cluster, { leaseMs, logger: createLogger('info', (l) => logs.push(l)) });
  return { cluster, coordination, logs };
}

/** Generously: leases and heartbeats on a busy machine. */
const WAIT = { timeoutMs: 20_000, intervalMs: 50 };

describeCoordinationContract('PostgreSQL (several instances)', async () => {
  const settings = { url: (await testDatabase()).url, poolSize: 2 };
  // Sessions, throttles and endpoint health live in tables: the database is migrated, as a served one is.
  await migratePostgres(settings);
  const { coordination } = instance(settings);
  return { coordination, close: () => coordination.close() };
});

describe('PostgreSQL instance registry', () => {
  const opened: { coordination: { close(): Promise<void> } }[] = [];
  const leases: InstanceLease[] = [];
  let admin: SQL | undefined;
  afterEach(async () => {
    for (const lease of leases.splice(0)) await Promise.resolve(lease.release()).catch(() => {});
    for (const o of opened.splice(0)) await o.coordination.close();
    await admin?.close();
    admin = undefined;
  });

  async function database() {
    const { url } = await testDatabase();
    admin = new SQL(url, { max: 1 });
    const rows = async () => ((await admin!`SELECT id FROM cluster_instances ORDER BY id`) as { id: string }[]).map((r) => r.id);
    return { url, rows };
  }
  function open(settings: PostgresSettings, leaseMs?: number) {
    const o = instance(settings, leaseMs);
    opened.push(o);
    return o;
  }
  async function acquire(o: ReturnType<typeof instance>) {
    const lease = await o.coordination.instance.acquire();
    expect(lease).toBeDefined();
    leases.push(lease!);
    return lease!;
  }

  test(
    'two instances on one database both serve and count each other; a released one leaves at once',
    async () => {
      const { url, rows } = await database();
      const [a, b] = [open({ url, poolSize: 2 }), open({ url, poolSize: 2 })];
      await acquire(a);
      const leaseB = await acquire(b);
      await a.coordination.instance.heartbeat();
      expect([a.cluster.liveInstances(), b.cluster.liveInstances()]).toEqual([2, 2]);
      expect(await rows()).toEqual([a.cluster.id, b.cluster.id].sort());
      await leaseB.release();
      expect(await rows()).toEqual([a.cluster.id]);
      await a.coordination.instance.heartbeat();
      expect(a.cluster.liveInstances()).toBe(1);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'an instance cut off from PostgreSQL is taken over after its lease (its work put back again), and registers again when it is back',
    async () => {
      const { url, rows } = await database();
      const settingsA = { url, poolSize: 2 };
      const [a, b] = [open(settingsA, 1500), open({ url, poolSize: 2 }, 1500)];
      await acquire(a);
      await acquire(b);
      let resetsB = 0;
      expect(await b.coordination.instance.recover('deliveries', () => ++resetsB && 3)).toBe(3);
      // A loses its database: its heartbeats fail from now on, as a killed process's stop.
      settingsA.url = 'postgres://islet@127.0.0.1:1/gone';
      await a.cluster.close();
      await until('one instance is left registered', async () => (await rows()).length === 1, WAIT);
      expect(await rows()).toEqual([b.cluster.id]);
      expect(resetsB).toBeGreaterThanOrEqual(2);
      await until('B logs that it took over the work of A', () => b.logs.some((l) => l.includes('took over the work of instances whose lease ran out') && l.includes(a.cluster.id)), WAIT);
      await until('A logs that its heartbeat fails', () => a.logs.some((l) => l.includes('cluster heartbeat fails')), WAIT);
      expect(a.logs.filter((l) => l.includes('cluster heartbeat fails')).length).toBe(1);

      // Back: a new pool reaches the database again.
      settingsA.url = url;
      await a.cluster.close();
      await a.coordination.instance.heartbeat();
      expect(a.logs.some((l) => l.includes("this instance's lease had run out"))).toBe(true);
      expect(a.logs.some((l) => l.includes('cluster heartbeat works again'))).toBe(true);
      expect(await rows()).toEqual([a.cluster.id, b.cluster.id].sort());
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'after an outage of PostgreSQL longer than the lease, an instance coming back registers again and takes nothing over from the others in that beat',
    async () => {
      const { url, rows } = await database();
      const [a, b] = [open({ url, poolSize: 2 }, 60_000), open({ url, poolSize: 2 }, 60_000)];
      await acquire(a);
      await acquire(b);
      let resetsA = 0;
      await a.coordination.instance.recover('deliveries', () => ++resetsA);
      // Every lease ran out while the database was away.
      await admin!`UPDATE cluster_instances SET lease_until = 0`;
      await a.coordination.instance.heartbeat();
      expect(a.logs.some((l) => l.includes("this instance's lease had run out"))).toBe(true);
      expect([await rows(), resetsA]).toEqual([[a.cluster.id, b.cluster.id].sort(), 1]);
      await b.coordination.instance.heartbeat();
      await a.coordination.instance.heartbeat();
      expect([a.cluster.liveInstances(), resetsA]).toEqual([2, 1]);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'held deliveries are put back at start only when no other instance is live',
    async () => {
      const { url } = await database();
      const [a, b] = [open({ url, poolSize: 2 }), open({ url, poolSize: 2 })];
      const leaseA = await acquire(a);
      await acquire(b);
      expect(await b.coordination.instance.recover('endpoint holds', () => 5)).toBe(0);
      await leaseA.release();
      expect(await b.coordination.instance.recover('endpoint holds', () => 5)).toBe(5);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a server of an earlier version (one instance per database, holding the instance lock) makes acquire refuse until it stops, and cannot start beside this one',
    async () => {
      const { url, rows } = await database();
      // The earlier version's session: a connection of its own.
      const older = new SQL(url, { max: 1 });
      const a = open({ url, poolSize: 2 });
      await older`SELECT pg_advisory_lock(${INSTANCE_LOCK_KEY})`;
      await expect(a.coordination.instance.acquire()).rejects.toThrow('an Islet server of an earlier version (one instance per database) is serving this PostgreSQL database: stop it first');
      await older`SELECT pg_advisory_unlock(${INSTANCE_LOCK_KEY})`;
      await acquire(a);
      expect(await rows()).toEqual([a.cluster.id]);
      // Nor can the earlier version start beside this one (it takes the lock exclusively).
      expect(((await older`SELECT pg_try_advisory_lock(${INSTANCE_LOCK_KEY}) AS got`) as { got: boolean }[])[0]!.got).toBe(false);
      await older.close();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});

describe('PostgreSQL scheduler leadership', () => {
  test(
    'one of two instances leads; when its connection ends (it stopped or died) the other leads',
    async () => {
      const { url } = await testDatabase();
      const [a, b] = [instance({ url, poolSize: 2 }), instance({ url, poolSize: 2 })];
      try {
        expect([await a.coordination.leadership.isLeader(), await b.coordination.leadership.isLeader(), await a.coordination.leadership.isLeader()]).toEqual([true, false, true]);
        await a.coordination.close();
        await until('B leads', () => b.coordination.leadership.isLeader(), WAIT);
      } finally {
        await a.coordination.close();
        await b.coordination.close();
      }
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
