import { afterEach, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMigrationsFolder, migrateDatabase, openDatabase } from './database';
import { apnsRequest, fcmMessage } from '../../modules/delivery/payloads';
import { notificationContent } from '../../modules/notifications/send/notification-content';
import type { TemplateRow } from '../../modules/notifications/releases/releases.types';
import { templateView } from '../../modules/notifications/releases/releases.service';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The shipped migrations before the one that added template options, as a database from before issue 36. */
function migrationsBeforeOptions(): string {
  const folder = join(dir, 'drizzle');
  cpSync(defaultMigrationsFolder(), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag.endsWith('notification_options'));
  expect(cut).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  return folder;
}

test('a template saved before the options existed reads as before and sends as before, with the message id added', () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-options-upgrade-'));
  const db = openDatabase(join(dir, 'islet.db'));
  migrateDatabase(db, migrationsBeforeOptions());
  const c = db.$client;
  c.run(`INSERT INTO apps (id, name, plan, app_secret_hash, app_secret_sealed, signing_secret_sealed, source, created_at, updated_at)
         VALUES ('a1', 'A', 'pro', 'h', 's', 's', 'api', 1, 1)`);
  c.run(`INSERT INTO releases (app_id, version, status, created_at, updated_at) VALUES ('a1', 1, 'Live', 1, 1)`);
  c.run(`INSERT INTO notification_templates (app_id, version, slug, title, body, placeholders, created_at, updated_at)
         VALUES ('a1', 1, 'welcome', 'Hi {{name}}', 'Welcome', '["name"]', 1, 1)`);

  migrateDatabase(db);

  const row = c.query<TemplateRow, []>(`SELECT app_id AS appId, version, slug, title, body, placeholders, options, created_at AS createdAt, updated_at AS updatedAt FROM notification_templates`).get()!;
  expect(row.options).toBeNull();
  expect(templateView(row)).toEqual({ slug: 'welcome', title: 'Hi {{name}}', body: 'Welcome', placeholders: ['name'] });
  const content = notificationContent(row, { variables: { name: 'Ada' } }, { messageId: 'msg_1', now: 1_000_000, defaultTtlSeconds: 2_419_200 });
  expect(apnsRequest(content, 'com.x')).toEqual({
    headers: { 'apns-push-type': 'alert', 'apns-topic': 'com.x', 'apns-priority': '10' },
    body: { aps: { alert: { title: 'Hi Ada', body: 'Welcome' }, sound: 'default' }, isletMessageId: 'msg_1' },
  });
  expect(fcmMessage(content)).toEqual({
    notification: { title: 'Hi Ada', body: 'Welcome' },
    android: { priority: 'high', ttl: '2419200s' },
    data: { isletMessageId: 'msg_1' },
  });
  db.$client.close();
});
