import { afterEach, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMigrationsFolder, migrateDatabase, openDatabase } from './database';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The shipped migrations up to (not including) the token ledger, as a database from before it had them. */
function migrationsBeforeLedger(): string {
  const folder = join(dir, 'drizzle');
  cpSync(defaultMigrationsFolder(), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag.endsWith('token_ledger'));
  expect(cut).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  return folder;
}

describe('upgrading a database from before the token ledger', () => {
  test('every token, refusal, running activity and queued delivery is carried into the ledger', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-upgrade-'));
    const db = openDatabase(join(dir, 'islet.db'));
    migrateDatabase(db, migrationsBeforeLedger());
    const c = db.$client;
    c.run(`INSERT INTO apps (id, name, plan, app_secret_hash, app_secret_sealed, signing_secret_sealed, source, created_at, updated_at)
           VALUES ('a1', 'A', 'pro', 'h', 's', 's', 'api', 1, 1)`);
    // u1 has two iPhones (the newer one holds the activity token) and an Android phone; u2's
    // device was refused; a token rotation left push-to-start token 'p2s-1' on two rows of u3.
    c.run(`INSERT INTO devices (id, app_id, end_user_id, platform, token, push_to_start_token, environment, invalidated_at, invalid_reason, created_at, updated_at)
           VALUES ('ios_old', 'a1', 'u1', 'ios', 'aa01', 'p2s-old', 'production', NULL, NULL, 1, 1),
                  ('ios_new', 'a1', 'u1', 'ios', 'aa02', 'p2s-new', 'sandbox', NULL, NULL, 2, 2),
                  ('and_1', 'a1', 'u1', 'android', 'fcm-1', NULL, 'production', NULL, NULL, 3, 3),
                  ('dead', 'a1', 'u2', 'ios', 'aa03', 'p2s-dead', 'production', 9, 'Unregistered', 1, 9),
                  ('rot_old', 'a1', 'u3', 'ios', 'aa04', 'p2s-1', 'production', NULL, NULL, 1, 1),
                  ('rot_new', 'a1', 'u3', 'ios', 'aa05', 'p2s-1', 'production', NULL, NULL, 5, 5)`);
    c.run(`INSERT INTO activities (id, app_id, end_user_id, template_slug, platform, state, attributes, content_state, push_token, started_at)
           VALUES ('la_1', 'a1', 'u1', 'progress-bar', 'ios', 'Active', '{}', '{}', 'act-tok', 10)`);
    c.run(`INSERT INTO messages (id, app_id, kind, activity_id, content, created_at)
           VALUES (1, 'a1', 'notification', NULL, '{}', 11), (2, 'a1', 'la_update', 'la_1', '{}', 12)`);
    c.run(`INSERT INTO deliveries (app_id, message_id, device_id, activity_id, status, attempts, next_attempt_at, created_at, updated_at)
           VALUES ('a1', 1, 'ios_old', NULL, 'pending', 0, 1, 1, 1), ('a1', 1, 'and_1', NULL, 'pending', 0, 1, 1, 1),
                  ('a1', 2, 'ios_new', 'la_1', 'pending', 0, 1, 1, 1), ('a1', 2, 'and_1', 'la_1', 'held', 0, 1, 1, 1)`);

    migrateDatabase(db);

    const tokens = c
      .query<{ device_id: string; kind: string; value: string; activity_id: string | null; environment: string | null; state: string }, []>(
        'SELECT device_id, kind, value, activity_id, environment, state FROM tokens ORDER BY device_id, kind',
      )
      .all();
    expect(tokens).toEqual([
      { device_id: 'and_1', kind: 'fcm_registration', value: 'fcm-1', activity_id: null, environment: null, state: 'active' },
      { device_id: 'dead', kind: 'apns_device', value: 'aa03', activity_id: null, environment: 'production', state: 'invalid' },
      { device_id: 'dead', kind: 'apns_push_to_start', value: 'p2s-dead', activity_id: null, environment: 'production', state: 'invalid' },
      { device_id: 'ios_new', kind: 'apns_activity', value: 'act-tok', activity_id: 'la_1', environment: 'sandbox', state: 'active' },
      { device_id: 'ios_new', kind: 'apns_device', value: 'aa02', activity_id: null, environment: 'sandbox', state: 'active' },
      { device_id: 'ios_new', kind: 'apns_push_to_start', value: 'p2s-new', activity_id: null, environment: 'sandbox', state: 'active' },
      { device_id: 'ios_old', kind: 'apns_device', value: 'aa01', activity_id: null, environment: 'production', state: 'active' },
      { device_id: 'ios_old', kind: 'apns_push_to_start', value: 'p2s-old', activity_id: null, environment: 'production', state: 'active' },
      { device_id: 'rot_new', kind: 'apns_device', value: 'aa05', activity_id: null, environment: 'production', state: 'active' },
      { device_id: 'rot_new', kind: 'apns_push_to_start', value: 'p2s-1', activity_id: null, environment: 'production', state: 'active' },
      { device_id: 'rot_old', kind: 'apns_device', value: 'aa04', activity_id: null, environment: 'production', state: 'active' },
    ]);
    expect(c.query<{ device_id: string }, []>('SELECT device_id FROM activity_instances ORDER BY device_id').all().map((r) => r.device_id)).toEqual([
      'and_1',
      'ios_new',
      'ios_old',
    ]);
    const pointed = c
      .query<{ device_id: string; kind: string | null }, []>(
        'SELECT d.device_id, t.kind FROM deliveries d LEFT JOIN tokens t ON t.id = d.token_id ORDER BY d.id',
      )
      .all();
    expect(pointed).toEqual([
      { device_id: 'ios_old', kind: 'apns_device' },
      { device_id: 'and_1', kind: 'fcm_registration' },
      { device_id: 'ios_new', kind: 'apns_activity' },
      { device_id: 'and_1', kind: 'fcm_registration' },
    ]);
    // The rebuilt devices table kept its rows, and nothing the ledger references was cascaded away.
    expect(c.query<{ n: number }, []>('SELECT count(*) AS n FROM devices').get()!.n).toBe(6);
    expect(c.query<{ n: number }, []>('PRAGMA foreign_key_check').all()).toEqual([]);
    db.$client.close();
  });
});
