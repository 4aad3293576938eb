import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Glob } from 'bun';
import type { Sql } from '../sql/sql';
import { silentLogger } from '../../lib/logger';
import { openSqliteStore, type SqliteStore } from './store';
import { metaRepository } from '../../modules/auth/meta.repository';
import { releasesRepository } from '../../modules/notifications/releases/releases.repository';
import { appsRepository } from '../../modules/apps/apps.repository';

/** Every feature's repository accessor (`export const xRepository = repository(…)`), by name. */
async function everyRepository(): Promise<[string, (sql: Sql) => unknown][]> {
  const found: [string, (sql: Sql) => unknown][] = [];
  const root = join(import.meta.dir, '../../modules');
  for (const file of new Glob('**/*.repository.ts').scanSync(root)) {
    for (const [name, value] of Object.entries(await import(join(root, file)))) if (name.endsWith('Repository') && typeof value === 'function') found.push([name, value as (sql: Sql) => unknown]);
  }
  expect(found.length).toBeGreaterThanOrEqual(24);
  return found;
}

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'islet-store-'));
  store = openSqliteStore(join(dir, 'islet.db'), { logger: silentLogger });
  store.migrate();
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite store', () => {
  test('a unit of work commits all its repository calls together, or none of them when it throws', async () => {
    await store.write(async (tx) => {
      await metaRepository(tx).put('a', '1');
      await metaRepository(tx).put('b', '2');
    });
    const failed = store.write(async (tx) => {
      await metaRepository(tx).put('a', 'changed');
      await metaRepository(tx).put('c', '3');
      throw new Error('refused');
    });
    expect(failed).rejects.toThrow('refused');
    await failed.catch(() => {});
    expect(await store.read(async (r) => [await metaRepository(r).get('a'), await metaRepository(r).get('b'), await metaRepository(r).get('c')])).toEqual(['1', '2', undefined]);
  });

  test('several statements made atomic outside a unit of work are a unit of work of their own: one that fails meanwhile does not undo them', async () => {
    await appsRepository(store.sql).insert({ id: 'a1', name: 'a1', plan: 'free', appSecretHash: 'h', appSecretSealed: 's', signingSecretSealed: 's', apnsSealed: null, fcmSealed: null, apnsPausedReason: null, fcmPausedReason: null, source: 'api', defaultTimeZone: 'UTC', laPriority10PerHour: null, laFrequentPriority10PerHour: null, quietHours: null, frequencyCap: null, createdAt: 1, updatedAt: 1 });
    // A unit of work that waits (against the rules, to let the other write run while its transaction is open), then fails.
    let release!: () => void;
    const opened = new Promise<void>((resolve) => (release = resolve));
    const failing = store.write(async (tx) => {
      await metaRepository(tx).put('from-failing', 'x');
      await Bun.sleep(20);
      await opened;
      throw new Error('refused');
    });
    await Bun.sleep(5);
    expect(store.sqlite.$client.inTransaction).toBe(true);
    const release1 = { appId: 'a1', version: 1, status: 'Draft' as const, createdAt: 1, updatedAt: 1 };
    const inserted = releasesRepository(store.sql).insert(release1, [{ slug: 'hello', title: 'Hi', body: 'there', placeholders: [] }]);
    release();
    expect(failing).rejects.toThrow('refused');
    await failing.catch(() => {});
    await inserted;
    expect(await metaRepository(store.sql).get('from-failing')).toBeUndefined();
    expect((await releasesRepository(store.sql).find('a1', 1))?.status).toBe('Draft');
    expect((await releasesRepository(store.sql).templates('a1', [1])).map((t) => t.slug)).toEqual(['hello']);
  });

  test('afterCommit runs once the unit of work committed, never when it rolled back, and at once outside one', async () => {
    const calls: string[] = [];
    await store.write(async (tx) => {
      store.afterCommit(() => calls.push(`committed, in transaction: ${store.sqlite.$client.inTransaction}`));
      await metaRepository(tx).put('a', '1');
      calls.push('job done');
    });
    await store
      .write(async (tx) => {
        store.afterCommit(() => calls.push('rolled back'));
        await metaRepository(tx).put('b', '2');
        throw new Error('refused');
      })
      .catch(() => {});
    store.afterCommit(() => calls.push('outside'));
    expect(calls).toEqual(['job done', 'committed, in transaction: false', 'outside']);
  });

  test('every repository method answers a Promise, also when the statement fails', async () => {
    const answer = metaRepository(store.sql).get('a');
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBeUndefined();
    store.sqlite.$client.run('DROP TABLE meta');
    const failing = metaRepository(store.sql).put('a', '1');
    expect(failing).toBeInstanceOf(Promise);
    expect(failing).rejects.toThrow('no such table');
    await failing.catch(() => {});
  });

  test('ready until a migration shipped with this build is missing', async () => {
    expect(await store.ready()).toBe(true);
    store.sqlite.$client.run('DELETE FROM __drizzle_migrations WHERE rowid = (SELECT max(rowid) FROM __drizzle_migrations)');
    expect(await store.ready()).toBe(false);
  });

  test('every method of every repository answers a Promise (called without arguments: most are refused, as rejected Promises)', async () => {
    const answers: string[] = [];
    for (const [name, repository] of await everyRepository()) {
      for (const [method, fn] of Object.entries(repository(store.sql) as Record<string, (...args: unknown[]) => unknown>)) {
        const answer = fn();
        answers.push(`${name}.${method}: ${answer instanceof Promise ? 'Promise' : typeof answer}`);
        if (answer instanceof Promise) await answer.catch(() => {});
      }
    }
    expect(answers.length).toBeGreaterThan(80);
    expect(answers.filter((a) => !a.endsWith(': Promise'))).toEqual([]);
  });
});
