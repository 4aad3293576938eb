import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDatabase, openDatabase, type Db } from './database';
import { groupCommit } from './group-commit';
import { silentLogger } from '../../lib/logger';
import { StorageHealth } from './storage-health';

let dir: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'islet-group-commit-'));
  db = openDatabase(join(dir, 'islet.db'));
  migrateDatabase(db);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = () => db.$client.query<{ key: string }, []>("SELECT key FROM meta WHERE key LIKE 'k%' ORDER BY key").all().map((r) => r.key);
const put = (key: string) => () => db.$client.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, 'v']);

describe('group commit', () => {
  test('writes asked for in one turn are committed together, and each resolves once that is done', async () => {
    const write = groupCommit(db.$client);
    const seenByFirst = write(put('k1')).then(() => keys());
    const results = await Promise.all(['k2', 'k3'].map((k) => write(() => (put(k)(), k.toUpperCase()))));
    expect(results).toEqual(['K2', 'K3']);
    expect(await seenByFirst).toEqual(['k1', 'k2', 'k3']);
    expect(db.$client.inTransaction).toBe(false);
  });

  test('a group holds the write lock from its first read, so a second writer (the outbox thread) cannot commit between its reads and writes', async () => {
    const other = openDatabase(join(dir, 'islet.db'));
    other.$client.exec('PRAGMA busy_timeout = 0');
    let otherError: unknown;
    try {
      await groupCommit(db.$client)(() => {
        keys();
        try {
          other.$client.run("INSERT INTO meta (key, value) VALUES ('k-other', 'v')");
        } catch (e) {
          otherError = e;
        }
        // Deferred, this write would now fail with SQLITE_BUSY_SNAPSHOT had the other one committed.
        put('k-group')();
      });
    } finally {
      other.$client.close();
    }
    expect((otherError as { code?: string } | undefined)?.code).toBe('SQLITE_BUSY');
    expect(keys()).toEqual(['k-group']);
  });

  test('while another connection holds the write lock the group waits in later turns of the event loop, growing, then commits', async () => {
    const other = openDatabase(join(dir, 'islet.db'));
    const write = groupCommit(db.$client);
    try {
      other.$client.run('BEGIN IMMEDIATE');
      const first = write(put('k1'));
      // Had the group waited in SQLite's busy handler, this thread would sleep and no timer could fire.
      await Bun.sleep(5);
      expect(keys()).toEqual([]);
      const second = write(put('k2'));
      await Bun.sleep(1);
      other.$client.run('COMMIT');
      await Promise.all([first, second]);
      expect(keys()).toEqual(['k1', 'k2']);
      expect(db.$client.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout).toBe(5000);
    } finally {
      other.$client.close();
    }
  });

  test('a write that throws is rolled back alone; the others of its group are committed', async () => {
    const write = groupCommit(db.$client);
    const outcomes = await Promise.allSettled([
      write(put('k1')),
      write(() => {
        put('k2')();
        throw new Error('refused');
      }),
      write(put('k3')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(keys()).toEqual(['k1', 'k3']);
  });

  test('when the COMMIT fails every write of the group fails and nothing is stored', async () => {
    const write = groupCommit(db.$client);
    const outcomes = await Promise.allSettled([
      write(put('k1')),
      // A deferred foreign key violation passes its savepoint and fails the COMMIT.
      write(() => {
        db.$client.run('PRAGMA defer_foreign_keys = ON');
        db.$client.run(
          "INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at) VALUES ('d', 'no-such-app', 'u', 'ios', 't', 'production', 1, 1)",
        );
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(keys()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
  });

  test('a write that finds the disk full fails with SQLITE_FULL and marks the storage failing; the next committed write clears it, one that wrote nothing does not', async () => {
    const storage = new StorageHealth(db.$client, silentLogger);
    const write = groupCommit(db.$client, storage);
    const pages = db.$client.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count;
    db.$client.exec(`PRAGMA max_page_count = ${pages}`);
    const big = () => db.$client.run('INSERT INTO meta (key, value) VALUES (?, ?)', ['k-big', 'x'.repeat(200_000)]);
    // Together with a small write in the same group: SQLite rolls the whole group back, so neither is acknowledged.
    const both = await Promise.allSettled([write(put('k-small')), write(big)]);
    expect(both.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'))).toEqual(['SQLITE_FULL', 'SQLITE_FULL']);
    expect(keys()).toEqual([]);
    expect(storage.check()).toStartWith('disk is full');
    // A unit of work that writes nothing (a claim that found no work) proves nothing about the storage.
    await write(() => db.$client.run("UPDATE meta SET value = 'y' WHERE key = 'none'"));
    expect(storage.check()).toStartWith('disk is full');
    db.$client.exec(`PRAGMA max_page_count = ${pages * 100}`);
    await write(put('k-after'));
    expect(storage.check()).toBeNull();
    expect(keys()).toEqual(['k-after']);
  });

  test('async jobs run one after another, each awaited inside its savepoint: a rejected one is rolled back alone, after the others wrote', async () => {
    const write = groupCommit(db.$client);
    const order: string[] = [];
    const job = (key: string, fail = false) => async () => {
      order.push(`start ${key}`);
      await Promise.resolve(put(key)());
      await Promise.resolve();
      order.push(`end ${key}`);
      if (fail) throw new Error('refused');
      return key;
    };
    const outcomes = await Promise.allSettled([write(job('k1')), write(job('k2', true)), write(job('k3'))]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(order).toEqual(['start k1', 'end k1', 'start k2', 'end k2', 'start k3', 'end k3']);
    expect(keys()).toEqual(['k1', 'k3']);
    expect(db.$client.inTransaction).toBe(false);
  });

  test('a group still running (a job that waits longer than a turn) makes the next one wait for its end, not nest in its transaction', async () => {
    const write = groupCommit(db.$client);
    let release = () => {};
    const slow = write(async () => {
      put('k1')();
      await new Promise<void>((resolve) => (release = resolve));
      put('k2')();
    });
    await Bun.sleep(5);
    const next = write(put('k3'));
    await Bun.sleep(5);
    // The first group's transaction is still open; the second has not begun one inside it.
    expect(db.$client.inTransaction).toBe(true);
    release();
    await Promise.all([slow, next]);
    expect(keys()).toEqual(['k1', 'k2', 'k3']);
    expect(db.$client.inTransaction).toBe(false);
  });
});
