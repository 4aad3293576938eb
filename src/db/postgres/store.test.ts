import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { silentLogger } from '../../lib/logger';
import type { AppRow } from '../../modules/apps/apps.types';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { openPostgresStore, type PostgresStore } from './store';
import { metaRepository } from '../../modules/auth/meta.repository';
import { appsRepository } from '../../modules/apps/apps.repository';
import { auditRepository } from '../../modules/audit/audit.repository';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

let store: PostgresStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function migrated(): Promise<{ store: PostgresStore; url: string }> {
  const { url } = await testDatabase();
  store = openPostgresStore({ url, poolSize: 4 }, silentLogger);
  await store.migrate();
  return { store, url };
}

const app = (id: string, at = 1_764_000_000_123): AppRow => ({
  id,
  name: id,
  plan: 'free',
  appSecretHash: 'h',
  appSecretSealed: 's',
  signingSecretSealed: 's',
  apnsSealed: null,
  fcmSealed: null,
  apnsPausedReason: null,
  fcmPausedReason: null,
  source: 'api',
  defaultTimeZone: 'UTC', laPriority10PerHour: null, laFrequentPriority10PerHour: null, quietHours: null, frequencyCap: null,
  createdAt: at,
  updatedAt: at,
});

describe('the PostgreSQL store', () => {
  test('ready once migrated; timestamps and ids come back as numbers, not strings', async () => {
    const { store } = await migrated();
    expect(await store.ready()).toBe(true);
    await store.write((tx) => appsRepository(tx).insert(app('a1')));
    expect((await appsRepository(store.sql).find('a1'))!.createdAt).toBe(1_764_000_000_123);
    await auditRepository(store.sql).insert({ at: 5_000_000_000_000, actor: 'cli', address: 'local', action: 'x', appId: 'a1', target: 't', summary: 's' });
    const { rows, total } = await auditRepository(store.sql).list({}, 10, 0);
    expect({ total, id: typeof rows[0]!.id, at: rows[0]!.at }).toEqual({ total: 1, id: 'number', at: 5_000_000_000_000 });
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('a unit of work that throws leaves nothing behind', async () => {
    const { store } = await migrated();
    const failing = store.write(async (tx) => {
      await appsRepository(tx).insert(app('a1'));
      throw new Error('no');
    });
    await expect(failing).rejects.toThrow('no');
    expect(await appsRepository(store.sql).find('a1')).toBeUndefined();
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('what runs after commit sees the committed rows from another connection', async () => {
    const { store, url } = await migrated();
    const other = new SQL(url, { max: 1 });
    let seen = -1;
    let jobDone = false;
    let calledAfterJob = false;
    let committed: Promise<void> = Promise.resolve();
    await store.write(async (tx) => {
      store.afterCommit(() => {
        calledAfterJob = jobDone;
        committed = (async () => {
          seen = (await other`SELECT count(*)::int AS n FROM apps`)[0].n;
        })();
      });
      await appsRepository(tx).insert(app('a1'));
      jobDone = true;
    });
    await committed;
    await other.close();
    expect({ calledAfterJob, seen }).toEqual({ calledAfterJob: true, seen: 1 });
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('two units of work racing to insert the same key both finish: the loser runs again and finds the row', async () => {
    const { store } = await migrated();
    const createOnce = () =>
      store.write(async (tx) => {
        if (await appsRepository(tx).find('a1')) return 'found';
        await appsRepository(tx).insert(app('a1'));
        return 'created';
      });
    const outcomes = await Promise.all(Array.from({ length: 4 }, createOnce));
    expect(outcomes.sort()).toEqual(['created', 'found', 'found', 'found']);
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('after a write refused for lack of space, a unit of work that only reads does not say writes work again; one that writes does', async () => {
    const { store } = await migrated();
    store.storage.failed(Object.assign(new Error('could not extend file'), { errno: '53100' }));
    expect(store.storage.check()).toBe('PostgreSQL is out of disk space');
    await store.write(async (tx) => void (await metaRepository(tx).get('nothing')));
    expect(store.storage.check()).toBe('PostgreSQL is out of disk space');
    await store.write(async (tx) => metaRepository(tx).put('k', 'v'));
    expect(store.storage.check()).toBeNull();
  }, POSTGRES_TEST_TIMEOUT_MS);
});
