import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../../test-support/postgres';
import { defaultPgMigrationsFolder, migratePostgres } from '../../../db/postgres/migrate';
import { defaultMigrationsFolder } from '../../../db/sqlite/database';
import { openSqliteStore } from '../../../db/sqlite/store';
import { silentLogger } from '../../../lib/logger';

// The migration that added deliveries.hold_endpoint read the endpoint of the rows already held for
// a down endpoint from their reason, once (drizzle/…_deliveries_hold_endpoint, drizzle-pg/…): from
// then on no statement reads it there.

const TAG = 'deliveries_hold_endpoint';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of a migrations folder as the release before: the hold_endpoint migration and any after it left out. */
function releaseBefore(folder: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'islet-before-hold-endpoint-'));
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

/** Rows as the release before wrote them, and the endpoint each should get. */
const ROWS: [status: string, kind: string | null, reason: string | null, endpoint: string | null][] = [
  ['held', 'apns_down', 'apns channel down: https://api.push.apple.com', 'https://api.push.apple.com'],
  ['held', 'fcm_down', 'fcm channel down: http://127.0.0.1:9444', 'http://127.0.0.1:9444'],
  ['held', 'apns_paused', 'apns channel paused', null],
  ['held', 'token', 'waiting for the activity push token', null],
  ['pending', null, 'apns channel down: https://api.push.apple.com', null],
];

const APP = `INSERT INTO apps (id, name, plan, app_secret_hash, app_secret_sealed, signing_secret_sealed, source, created_at, updated_at) VALUES ('a1', 'a1', 'pro', 'h', 's', 's', 'api', 0, 0)`;
const MESSAGE = `INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at) VALUES ('a1', 'la_update', 'la_1', '{}', 't', 0)`;
const DELIVERY = (n: (i: number) => string) =>
  `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, status, hold_kind, attempts, next_attempt_at, reason, created_at, updated_at) VALUES ('a1', 1, 'dev_1', 'la_1', ${n(1)}, ${n(2)}, 0, 0, ${n(3)}, 0, 0)`;

describe('the hold_endpoint migration', () => {
  test('SQLite: rows held for a down endpoint get the endpoint their reason named; no other row gets one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'islet-hold-endpoint-'));
    dirs.push(dir);
    const store = openSqliteStore(join(dir, 'i.db'), { logger: silentLogger });
    try {
      store.migrate(releaseBefore(defaultMigrationsFolder()));
      const client = store.sqlite.$client;
      client.run(APP);
      client.run(MESSAGE);
      for (const [status, kind, reason] of ROWS) client.query(DELIVERY((i) => `?${i}`)).run(status, kind, reason);
      store.migrate(defaultMigrationsFolder());
      const rows = client.query<{ status: string; hold_kind: string | null; reason: string | null; hold_endpoint: string | null }, []>('SELECT status, hold_kind, reason, hold_endpoint FROM deliveries ORDER BY id').all();
      expect(rows.map((r) => [r.status, r.hold_kind, r.reason, r.hold_endpoint])).toEqual(ROWS);
    } finally {
      store.sqlite.$client.close();
    }
  });

  describe('PostgreSQL', () => {
    beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);
    test(
      'rows held for a down endpoint get the endpoint their reason named; no other row gets one',
      async () => {
        const { url } = await testDatabase();
        await migratePostgres({ url, poolSize: 1 }, releaseBefore(defaultPgMigrationsFolder()));
        const client = new SQL(url, { max: 1 });
        try {
          await client.unsafe(APP);
          await client.unsafe(MESSAGE);
          for (const [status, kind, reason] of ROWS) await client.unsafe(DELIVERY((i) => `$${i}`), [status, kind, reason]);
          await migratePostgres({ url, poolSize: 1 });
          const rows: { status: string; hold_kind: string | null; reason: string | null; hold_endpoint: string | null }[] =
            await client`SELECT status, hold_kind, reason, hold_endpoint FROM deliveries ORDER BY id`;
          expect(rows.map((r) => [r.status, r.hold_kind, r.reason, r.hold_endpoint])).toEqual(ROWS);
        } finally {
          await client.close();
        }
      },
      POSTGRES_TEST_TIMEOUT_MS,
    );
  });
});
