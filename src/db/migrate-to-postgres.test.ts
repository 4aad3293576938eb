import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../test-support/postgres';
import { copyPlan, type CopyTable } from './migrate-to-postgres';
import { migratePostgres } from './postgres/migrate';
import { type Db, defaultMigrationsFolder, migrateDatabase, openDatabase } from './sqlite/database';

const MAIN = join(import.meta.dir, '..', 'main.ts');
const dir = mkdtempSync(join(tmpdir(), 'islet-pgmove-refuse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

/** `islet migrate-to-postgres …` on the SQLite file `db`, configured by the environment only. */
function move(db: string, args: string[], env: Record<string, string> = {}) {
  const res = Bun.spawnSync([process.execPath, MAIN, 'migrate-to-postgres', ...args], {
    cwd: dir,
    env: { ...process.env, ISLET_CONFIG: '', ISLET_DATABASE_PATH: db, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
}
/** Each run starts bun (0.5-1 s, more on a busy machine) and may connect and migrate. */
const CLI_TIMEOUT_MS = 30_000;

/** A SQLite database with only the first `n` of this build's migrations applied. */
function partlyMigrated(name: string, n: number): string {
  const folder = join(dir, `${name}-migrations`);
  cpSync(defaultMigrationsFolder(), folder, { recursive: true });
  const journal = join(folder, 'meta', '_journal.json');
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries: unknown[] };
  writeFileSync(journal, JSON.stringify({ ...parsed, entries: parsed.entries.slice(0, n) }));
  const path = join(dir, name, 'islet.db');
  const db = openDatabase(path);
  migrateDatabase(db, folder);
  db.$client.close();
  return path;
}

describe('the copy plan', () => {
  let db: Db;
  let plan: CopyTable[];
  beforeAll(async () => {
    db = openDatabase(join(dir, 'plan', 'islet.db'));
    migrateDatabase(db);
    const { url } = await testDatabase();
    await migratePostgres({ url, poolSize: 1 });
    const pg = new SQL(url, { max: 1 });
    try {
      plan = await copyPlan(db.$client, pg);
    } finally {
      await pg.close();
    }
  }, POSTGRES_TEST_TIMEOUT_MS);
  afterAll(() => db.$client.close());

  test('names every table of the migrated SQLite database, each after the tables its foreign keys point at', () => {
    const tables = db.$client
      .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'`)
      .all()
      .map((t) => t.name);
    const names = plan.map((t) => t.name);
    expect([...names].sort()).toEqual([...tables].sort());
    for (const table of tables) {
      for (const ref of db.$client.query<{ table: string }, []>(`PRAGMA foreign_key_list("${table}")`).all()) {
        expect({ table, parent: ref.table, before: names.indexOf(ref.table) < names.indexOf(table) }).toEqual({ table, parent: ref.table, before: true });
      }
    }
  });

  test('converts exactly the boolean columns, moves the sequence of every integer id, and leaves PostgreSQL-only columns to their default', () => {
    expect(plan.flatMap((t) => [...t.booleans].map((c) => `${t.name}.${c}`)).sort()).toEqual(['broadcast_ops.apns_done', 'broadcast_ops.fcm_done', 'devices.frequent_pushes_enabled', 'end_users.tester', 'webhook_endpoints.enabled']);
    expect(plan.filter((t) => t.identity).map((t) => `${t.name}.${t.identity}`).sort()).toEqual(
      ['audit_log.id', 'broadcast_ops.id', 'deliveries.id', 'messages.id', 'scheduled_sends.id', 'tokens.id', 'webhook_attempts.id', 'webhook_deliveries.id'].sort(),
    );
    expect(plan.find((t) => t.name === 'deliveries')!.columns).not.toContain('claimed_by');
  });
});

describe('islet migrate-to-postgres refuses', () => {
  test('without a target, or with one that is no PostgreSQL URL: names --to and [database] url', () => {
    const res = move(join(dir, 'none.db'), []);
    expect(res.code).toBe(1);
    expect(res.err).toContain('migrate-to-postgres needs the PostgreSQL database to copy into: --to postgres://user:password@host:5432/islet, or [database] url (ISLET_DATABASE_URL)');
    const mysql = move(join(dir, 'none.db'), ['--to', 'mysql://root:pw@db/islet']);
    expect(mysql.code).toBe(1);
    expect(mysql.err).toContain('--to must start with postgres:// or postgresql://');
    expect(mysql.err).not.toContain('pw@');
  }, CLI_TIMEOUT_MS);

  test('a SQLite file that is missing, not an Islet database, or not migrated to this build; and the target stays untouched', async () => {
    const { url } = await testDatabase();
    expect(move(join(dir, 'missing', 'islet.db'), ['--to', url]).err).toContain(`no SQLite database at ${join(dir, 'missing', 'islet.db')} (database.path) to copy`);

    mkdirSync(join(dir, 'other'));
    const other = join(dir, 'other', 'notes.db');
    new Database(other).exec('CREATE TABLE notes (text TEXT)');
    const notIslet = move(other, ['--to', url]);
    expect(notIslet.code).toBe(1);
    expect(notIslet.err).toContain(`${other} is not an Islet database`);

    const old = partlyMigrated('old', 3);
    const unmigrated = move(old, ['--to', url]);
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.err).toMatch(new RegExp(`${old} has 3 of this build's \\d+ migrations: run islet migrate first, then migrate-to-postgres`));

    const pg = new SQL(url, { max: 1 });
    try {
      expect((await pg`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)[0].n).toBe(0);
    } finally {
      await pg.close();
    }
  }, CLI_TIMEOUT_MS);

  test('an unreachable target and a wrong password, with check-config’s diagnostics naming --to, and the password never shown', async () => {
    const db = join(dir, 'fresh', 'islet.db');
    expect(Bun.spawnSync([process.execPath, MAIN, 'migrate'], { cwd: dir, env: { ...process.env, ISLET_CONFIG: '', ISLET_DATABASE_PATH: db } }).exitCode).toBe(0);
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const closed = probe.port;
    probe.stop(true);
    const unreachable = move(db, ['--to', `postgres://islet:secret-pw@127.0.0.1:${closed}/islet`]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toContain(`--to: cannot reach PostgreSQL at 127.0.0.1:${closed}: the connection was refused`);
    expect(unreachable.err).not.toContain('secret-pw');

    const { url, server } = await testDatabase();
    const wrong = move(db, [`--to=${url.replace(server.password, 'not-the-password')}`]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`--to: authentication failed for user "postgres" at 127.0.0.1:${server.port}`);
    expect(wrong.out + wrong.err).not.toContain('not-the-password');

    // Without --to, [database] url (here ISLET_DATABASE_URL) is the target: a freshly migrated database copies as empty tables.
    const fromConfig = move(db, [], { ISLET_DATABASE_URL: url });
    expect(fromConfig.err).toBe('');
    expect(fromConfig.out).toMatch(/^\d+ tables, 0 rows in \d+\.\d s; the row count of every table verified$/m);
    expect(fromConfig.out).not.toContain(server.password);
  }, CLI_TIMEOUT_MS);
});
