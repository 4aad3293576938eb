import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../test-support/postgres';
import { defaultPgMigrationsFolder, migratePostgres } from './postgres/migrate';
import { defaultMigrationsFolder } from './sqlite/database';
import { openSqliteStore } from './sqlite/store';
import { silentLogger } from '../lib/logger';

// The migration that added deliveries.hold_kind told the kind of the rows already held from their
// reason, once (drizzle/0013, drizzle-pg/0004): what each kind of held row becomes.

const TAG = 'deliveries_hold_kind';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of a migrations folder as the release before: the hold_kind migration and any after it left out. */
function releaseBefore(folder: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'islet-before-hold-kind-'));
  dirs.push(dir);
  const copy = join(dir, 'migrations');
  cpSync(folder, copy, { recursive: true });
  const journalPath = join(copy, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag.endsWith(TAG));
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return copy;
}

/** Held rows of every kind as an older release wrote them (the kind only in the reason), and two not held. */
const ROWS: [status: string, reason: string | null, kind: string | null][] = [
  ['held', 'waiting for the activity push token', 'token'],
  ['held', null, 'token'],
  ['held', 'apns channel paused', 'apns_paused'],
  ['held', 'fcm channel paused', 'fcm_paused'],
  ['held', 'apns channel down: https://api.push.apple.com', 'apns_down'],
  ['held', 'fcm channel down: https://fcm.googleapis.com', 'fcm_down'],
  ['pending', 'apns channel paused', null],
  ['delivered', null, null],
];

const APP = `INSERT INTO apps (id, name, plan, app_secret_hash, app_secret_sealed, signing_secret_sealed, source, created_at, updated_at) VALUES ('a1', 'a1', 'pro', 'h', 's', 's', 'api', 0, 0)`;
const MESSAGE = `INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at) VALUES ('a1', 'la_update', 'la_1', '{}', 't', 0)`;
const DELIVERY = (n: (i: number) => string) =>
  `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, status, attempts, next_attempt_at, reason, created_at, updated_at) VALUES ('a1', 1, 'dev_1', 'la_1', ${n(1)}, 0, 0, ${n(2)}, 0, 0)`;

describe('the hold_kind migration', () => {
  test('SQLite: held rows get the kind their reason told; rows not held get none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'islet-hold-kind-'));
    dirs.push(dir);
    const store = openSqliteStore(join(dir, 'i.db'), { logger: silentLogger });
    try {
      store.migrate(releaseBefore(defaultMigrationsFolder()));
      const client = store.sqlite.$client;
      client.run(APP);
      client.run(MESSAGE);
      for (const [status, reason] of ROWS) client.query(DELIVERY((i) => `?${i}`)).run(status, reason);
      store.migrate(defaultMigrationsFolder());
      const rows = client.query<{ status: string; reason: string | null; hold_kind: string | null }, []>('SELECT status, reason, hold_kind FROM deliveries ORDER BY id').all();
      expect(rows.map((r) => [r.status, r.reason, r.hold_kind])).toEqual(ROWS);
    } finally {
      store.sqlite.$client.close();
    }
  });

  describe('PostgreSQL', () => {
    beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);
    test(
      'held rows get the kind their reason told; rows not held get none',
      async () => {
        const { url } = await testDatabase();
        await migratePostgres({ url, poolSize: 1 }, releaseBefore(defaultPgMigrationsFolder()));
        const client = new SQL(url, { max: 1 });
        try {
          await client.unsafe(APP);
          await client.unsafe(MESSAGE);
          for (const [status, reason] of ROWS) await client.unsafe(DELIVERY((i) => `$${i}`), [status, reason]);
          await migratePostgres({ url, poolSize: 1 });
          const rows: { status: string; reason: string | null; hold_kind: string | null }[] = await client`SELECT status, reason, hold_kind FROM deliveries ORDER BY id`;
          expect(rows.map((r) => [r.status, r.reason, r.hold_kind])).toEqual(ROWS);
        } finally {
          await client.close();
        }
      },
      POSTGRES_TEST_TIMEOUT_MS,
    );
  });
});
