import { afterEach, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMigrationsFolder, migrateDatabase, openDatabase } from '../../db/database';
import { tokensRepository } from './tokens.repository';

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
  test('devices keep working: their registration tokens move into the ledger and queued notifications still go', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-upgrade-'));
    const db = openDatabase(join(dir, 'islet.db'));
    migrateDatabase(db, migrationsBeforeLedger());
    const c = db.$client;
    c.run(`INSERT INTO apps (id, name, plan, app_secret_hash, app_secret_sealed, signing_secret_sealed, source, created_at, updated_at)
           VALUES ('a1', 'A', 'pro', 'h', 's', 's', 'api', 1, 1)`);
    c.run(`INSERT INTO devices (id, app_id, end_user_id, platform, token, push_to_start_token, environment, created_at, updated_at)
           VALUES ('dev_ios', 'a1', 'u1', 'ios', 'aaaa', 'pppp', 'sandbox', 1, 1), ('dev_android', 'a1', 'u2', 'android', 'fcm-1', NULL, 'production', 1, 1)`);
    c.run(`INSERT INTO messages (id, app_id, kind, content, created_at) VALUES (1, 'a1', 'notification', '{}', 1)`);
    c.run(`INSERT INTO deliveries (app_id, message_id, device_id, status, attempts, next_attempt_at, created_at, updated_at)
           VALUES ('a1', 1, 'dev_ios', 'pending', 0, 1, 1, 1), ('a1', 1, 'dev_android', 'pending', 0, 1, 1, 1)`);

    migrateDatabase(db);
    expect(tokensRepository(db).adoptDeviceTokens(2)).toBe(2);
    const tokens = c.query<{ device_id: string; kind: string; value: string; environment: string | null; state: string }, []>(
      'SELECT device_id, kind, value, environment, state FROM tokens ORDER BY device_id',
    ).all();
    expect(tokens).toEqual([
      { device_id: 'dev_android', kind: 'fcm_registration', value: 'fcm-1', environment: 'production', state: 'active' },
      { device_id: 'dev_ios', kind: 'apns_device', value: 'aaaa', environment: 'sandbox', state: 'active' },
    ]);
    const unpointed = c.query<{ n: number }, []>('SELECT count(*) AS n FROM deliveries WHERE token_id IS NULL').get()!.n;
    expect(unpointed).toBe(0);
    db.$client.close();
  });
});
