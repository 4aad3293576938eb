import { afterEach, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_CONNECTION_CHECKPOINT_PAGES } from '../../bootstrap';
import { createHarness } from '../../test-support/harness';
import { defaultMigrationsFolder, isDatabaseReady, migrateDatabase, openDatabase, type Db } from './database';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('database', () => {
  test('a fresh file is created with WAL and foreign keys, and migrated', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-db-'));
    const db = openDatabase(join(dir, 'nested', 'islet.db'));
    expect(isDatabaseReady(db)).toBe(false);
    migrateDatabase(db);
    expect(isDatabaseReady(db)).toBe(true);
    expect(db.$client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()?.journal_mode).toBe('wal');
    expect(db.$client.query<{ foreign_keys: number }, []>('PRAGMA foreign_keys').get()?.foreign_keys).toBe(1);
    const tables = db.$client.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['apps', 'devices', 'activities', 'messages', 'deliveries', 'releases', 'notification_templates']));
    db.$client.close();
  });

  test("the API's connection leaves WAL checkpoints to other connections up to its backstop; others keep SQLite's default", async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-db-'));
    const harness = await createHarness();
    const other = openDatabase(harness.dbPath);
    const pages = (db: Db) => db.$client.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()?.wal_autocheckpoint;
    try {
      expect(pages(harness.ctx.db.sqlite)).toBe(API_CONNECTION_CHECKPOINT_PAGES);
      expect(pages(other)).toBe(1000);
    } finally {
      other.$client.close();
      harness.close();
    }
  });

  test('migrating an existing database again keeps its data and changes nothing', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-db-'));
    const path = join(dir, 'islet.db');
    const first = openDatabase(path);
    migrateDatabase(first);
    first.$client.run("INSERT INTO meta (key, value) VALUES ('k', 'v')");
    const applied = first.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM __drizzle_migrations').get()?.n;
    first.$client.close();

    const second = openDatabase(path);
    migrateDatabase(second);
    migrateDatabase(second);
    expect(second.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM __drizzle_migrations').get()?.n).toBe(applied!);
    expect(second.$client.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'k'").get()?.value).toBe('v');
    second.$client.close();
  });

  test('an up-to-date database starts without reading the migrations (the journal says so); a newer one in the journal still applies', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-db-'));
    const shipped = join(dir, 'shipped');
    cpSync(defaultMigrationsFolder(), shipped, { recursive: true });
    const db = openDatabase(join(dir, 'islet.db'));
    migrateDatabase(db, shipped);
    // Without their SQL files drizzle's migrator fails (it reads and hashes every file first).
    const journalOnly = join(dir, 'journal-only');
    cpSync(shipped, journalOnly, { recursive: true });
    for (const file of readdirSync(journalOnly)) if (file.endsWith('.sql')) rmSync(join(journalOnly, file));
    expect(() => migrateDatabase(db, journalOnly)).not.toThrow();

    const journal = JSON.parse(readFileSync(join(shipped, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number; when: number; tag: string; version: string; breakpoints: boolean }[] };
    const last = journal.entries.at(-1)!;
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag: '9999_newer' });
    writeFileSync(join(shipped, 'meta', '_journal.json'), JSON.stringify(journal));
    writeFileSync(join(shipped, '9999_newer.sql'), 'CREATE TABLE newer_probe (x integer);');
    migrateDatabase(db, shipped);
    expect(db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'newer_probe'").get()?.n).toBe(1);
    db.$client.close();
  });
});
