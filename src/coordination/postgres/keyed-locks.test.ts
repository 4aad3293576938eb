import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { pgCluster, type PgCluster } from './cluster';
import { lockPool, pgKeyedLocks, type LockPool } from './keyed-locks';

beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);

const opened: { cluster: PgCluster; pool: LockPool }[] = [];
function instance(url: string) {
  const cluster = pgCluster({ url, poolSize: 4 });
  const pool = lockPool(cluster);
  opened.push({ cluster, pool });
  return pool;
}
afterEach(async () => {
  for (const { cluster, pool } of opened.splice(0)) await Promise.all([pool.close(), cluster.close()]);
});

/** A job that records when it starts and ends, and takes a moment. */
const recorder = (log: string[]) => (name: string, ms: number) => async () => {
  log.push(`${name} starts`);
  await Bun.sleep(ms);
  log.push(`${name} ends`);
  return name;
};

describe('keyed locks across instances (PostgreSQL advisory locks)', () => {
  test(
    'jobs of one key on two instances never overlap; a failed job lets the next one run',
    async () => {
      const { url } = await testDatabase();
      const a = pgKeyedLocks(instance(url), 'activity-streams');
      const b = pgKeyedLocks(instance(url), 'activity-streams');
      const log: string[] = [];
      const job = recorder(log);
      const runs = [];
      for (let i = 0; i < 4; i++) {
        runs.push(a.run('app\nk', job(`a${i}`, 30)));
        runs.push(b.run('app\nk', job(`b${i}`, 30)));
      }
      const failing = a.run('app\nk', async () => {
        throw new Error('job failed');
      });
      await expect(failing).rejects.toThrow('job failed');
      expect(await b.run('app\nk', job('last', 1))).toBe('last');
      await Promise.all(runs);
      // Every start is followed by its own end before the next start.
      for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(log[i]!.replace('starts', 'ends'));
      expect(log.length).toBe(18);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'different keys and different names run at the same time on two instances',
    async () => {
      const { url } = await testDatabase();
      const pa = instance(url);
      const pb = instance(url);
      let running = 0;
      let most = 0;
      const job = async () => {
        most = Math.max(most, ++running);
        await Bun.sleep(300);
        running--;
      };
      await Promise.all([
        pgKeyedLocks(pa, 'activity-streams').run('app\nk1', job),
        pgKeyedLocks(pb, 'activity-streams').run('app\nk2', job),
        pgKeyedLocks(pb, 'other-use').run('app\nk1', job),
      ]);
      expect(most).toBe(3);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
