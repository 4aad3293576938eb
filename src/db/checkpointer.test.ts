import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCheckpointer } from './checkpointer';
import { openDatabase, type Db } from './database';

let dir: string;
let db: Db;
afterEach(() => {
  db?.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once `check` holds, polling; fails after `ms` (a bound on waiting, not a speed claim). */
async function waitUntil(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await Bun.sleep(20);
  }
}

describe('WAL checkpoints on a worker thread', () => {
  test('the request connection no longer checkpoints; the worker copies committed pages into the database file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-checkpointer-'));
    const path = join(dir, 'islet.db');
    db = openDatabase(path);
    db.$client.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
    db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const sizeBefore = statSync(path).size;
    const stop = startCheckpointer(db.$client, path, { intervalMs: 20 });
    expect(db.$client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!.wal_autocheckpoint).toBe(0);

    const insert = db.$client.prepare('INSERT INTO blobs (data) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run(new Uint8Array(8192));
    // 1.6 MB committed to the WAL: only a checkpoint puts it in the database file.
    await waitUntil(() => statSync(path).size >= sizeBefore + 1_600_000);

    await stop();
    expect(db.$client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!.wal_autocheckpoint).toBe(1000);
  });

  test('an in-memory database gets no worker', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-checkpointer-'));
    db = openDatabase(':memory:');
    const stop = startCheckpointer(db.$client, ':memory:');
    await stop();
    expect(db.$client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!.wal_autocheckpoint).toBe(1000);
  });
});
