import { expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lineCount, migrationTables, reasonMatches, tableMentions } from './source-scan';

test("a table is found in a statement and as a quoted name, not in a comment, a doc example or another word", () => {
  const text = [
    '/** @example statement(`SELECT id FROM apps WHERE id = $1`) */',
    '// we read from deliveries here',
    "const a = `SELECT count(*) FROM deliveries d JOIN devices dev ON dev.id = d.device_id`;",
    "const b = n('activities');",
    "const c = 'UPDATE meta SET value = $1';",
    "const d = `SELECT * FROM deliveries_archive`; // a word of its own only",
    "const e = 'these apps and devices';",
  ].join('\n');
  expect(tableMentions(text, ['apps', 'deliveries', 'devices', 'activities'])).toEqual(['FROM deliveries', 'JOIN devices', "'activities'"]);
});

test('matching rows by reason is found in a condition and a GROUP BY; setting or reading it is not', () => {
  const text = [
    "`UPDATE deliveries SET reason = NULL WHERE status = 'held' AND hold_kind = $3 AND reason = $4`",
    "`SELECT reason, count(*) AS n FROM deliveries WHERE app_id = $1 GROUP BY reason`",
    "`SELECT d.reason FROM deliveries d WHERE d.reason IN ($1, $2)`",
    "`UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL WHERE id = $1`",
    "`SELECT id, invalid_reason AS r FROM tokens WHERE invalid_reason IS NULL`",
    '// WHERE reason = $1 in a comment',
  ].join('\n');
  expect(reasonMatches(text)).toEqual(['AND reason = $4`', 'WHERE d.reason IN ($1, $2)`', 'GROUP BY reason`']);
});

test('the tables of the migrations, a rebuilt one under its own name; lines as an editor numbers them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'islet-tables-'));
  try {
    writeFileSync(join(dir, '0000_init.sql'), 'CREATE TABLE `apps` (\n`id` text);\n--> statement-breakpoint\nCREATE TABLE "meta" (key text);');
    writeFileSync(join(dir, '0001_x.sql'), 'CREATE TABLE `__new_devices` (`id` text);\nALTER TABLE `__new_devices` RENAME TO `devices`;');
    writeFileSync(join(dir, 'notes.md'), 'CREATE TABLE nope');
    expect(migrationTables(dir)).toEqual(['apps', 'devices', 'meta']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(lineCount('a\nb\n')).toBe(2);
  expect(lineCount('a\nb')).toBe(2);
  expect(lineCount('')).toBe(0);
});
