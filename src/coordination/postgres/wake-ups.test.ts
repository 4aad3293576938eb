import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { silentLogger } from '../../lib/logger';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, startPostgres, testDatabase } from '../../test-support/postgres';
import { pgCluster, type PgCluster } from './cluster';
import { EVENTS_CHANNEL, pgNotifications, type PgNotifications } from './notifications';
import { pgWakeUps } from './wake-ups';
import { until } from '../../test-support/eventually';

beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);

/** Generously: a notification takes a round trip through PostgreSQL. */
const WAIT = { timeoutMs: 20_000, intervalMs: 5 };

const opened: { cluster: PgCluster; notifications: PgNotifications }[] = [];
/** One instance's notifications on the database at `url`. */
function instance(url: string) {
  const cluster = pgCluster({ url, poolSize: 2 });
  const notifications = pgNotifications(cluster, silentLogger);
  opened.push({ cluster, notifications });
  return { cluster, notifications, wakeUps: pgWakeUps(notifications) };
}

afterEach(async () => {
  for (const { cluster, notifications } of opened.splice(0)) {
    await notifications.close();
    await cluster.close();
  }
});

describe('wake-ups across instances (PostgreSQL LISTEN/NOTIFY)', () => {
  test(
    'a notify on A runs the listeners of B, with its subject, and A’s own listeners once (at once, not again from the echo)',
    async () => {
      const { url } = await testDatabase();
      const a = instance(url);
      const b = instance(url);
      const heardA: (string | undefined)[] = [];
      const heardB: (string | undefined)[] = [];
      a.wakeUps.on('credentials-changed', (s) => heardA.push(s));
      b.wakeUps.on('credentials-changed', (s) => heardB.push(s));
      await Promise.all([a.notifications.listening(), b.notifications.listening()]);
      a.wakeUps.notify('credentials-changed', 'demo/apns');
      expect(heardA).toEqual(['demo/apns']);
      await until('B hears A', () => heardB.length === 1, WAIT);
      expect(heardB).toEqual(['demo/apns']);
      // A NOTIFY from B after A's: once B's is heard on A, A's own echo would have come before it.
      b.wakeUps.notify('credentials-changed', 'other/fcm');
      await until('A hears B', () => heardA.length === 2, WAIT);
      expect(heardA).toEqual(['demo/apns', 'other/fcm']);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a burst of one topic sends two NOTIFYs, not one per notify; another topic is not held back by it',
    async () => {
      const { url } = await testDatabase();
      const a = instance(url);
      const b = instance(url);
      const heard = { queued: 0, changed: 0 };
      b.wakeUps.on('deliveries-queued', () => heard.queued++);
      b.wakeUps.on('deliveries-changed', () => heard.changed++);
      await b.notifications.listening();
      for (let i = 0; i < 1000; i++) a.wakeUps.notify('deliveries-queued');
      a.wakeUps.notify('deliveries-changed');
      await until('B hears the burst’s first and last NOTIFY', () => heard.queued === 2 && heard.changed === 1, WAIT);
      await Bun.sleep(100);
      expect(heard).toEqual({ queued: 2, changed: 1 });
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'after its listening connection is terminated, B looks at everything once and hears later notifies again',
    async () => {
      const { url } = await testDatabase();
      const a = instance(url);
      const b = instance(url);
      const heard: (string | undefined)[] = [];
      b.wakeUps.on('deliveries-queued', (s) => heard.push(s ?? 'anything'));
      await b.notifications.listening();
      a.wakeUps.notify('deliveries-queued', 'before');
      await until('B hears A before', () => heard.length === 1, WAIT);
      const admin = new SQL(url, { max: 1 });
      try {
        // Only B listens on this database (A only sends).
        const killed = await admin`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
          WHERE datname = current_database() AND query = ${`LISTEN "${EVENTS_CHANNEL}"`}`;
        expect(killed.length).toBe(1);
      } finally {
        await admin.close();
      }
      await until('B looks at everything once listening again', () => heard.length === 2, WAIT);
      expect(heard).toEqual(['before', 'anything']);
      a.wakeUps.notify('deliveries-queued', 'after');
      await until('B hears A after the reconnect', () => heard.length === 3, WAIT);
      expect(heard).toEqual(['before', 'anything', 'after']);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});

describe('wake-ups across a PostgreSQL restart', () => {
  test(
    'B listens again by itself once the server is back: it looks at everything once and hears A again',
    async () => {
      // A server of its own: this test stops it, which the shared one's other users must not see.
      const server = await startPostgres();
      try {
        const url = server.url('postgres');
        const a = instance(url);
        const b = instance(url);
        const heard: string[] = [];
        b.wakeUps.on('deliveries-queued', (s) => heard.push(s ?? 'anything'));
        await b.notifications.listening();
        await server.pause();
        await server.resume();
        await until('B looks at everything once listening again', () => heard.includes('anything'), WAIT);
        // Sends until one arrives: A's pool may need a moment to reconnect too.
        await until('B hears A after the restart', () => {
          a.wakeUps.notify('deliveries-queued', 'after the restart');
          return heard.includes('after the restart');
        }, WAIT);
      } finally {
        for (const { cluster, notifications } of opened.splice(0)) {
          await notifications.close();
          await cluster.close();
        }
        await server.stop();
      }
    },
    POSTGRES_STARTUP_TIMEOUT_MS,
  );
});
