import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPgMigrationsFolder } from '../db/postgres/migrate';

/**
 * The PostgreSQL migrations of a next release: a copy of drizzle-pg/ (in a new folder under the
 * system's temporary folder) with one more migration of `statements`, as drizzle-kit would add it.
 * Pass the folder to `migratePostgres` to play that release's first start. The caller removes it.
 * @example const next = nextReleaseMigrations(['ALTER TABLE "devices" ADD COLUMN "x" text;']); await migratePostgres(settings, next);
 */
export function nextReleaseMigrations(statements: string[]): string {
  const folder = join(mkdtempSync(join(tmpdir(), 'islet-next-release-')), 'drizzle-pg');
  cpSync(defaultPgMigrationsFolder(), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[] };
  const tag = '9999_next_release';
  journal.entries.push({ idx: journal.entries.length, version: '7', when: Date.now(), tag, breakpoints: true });
  writeFileSync(journalPath, JSON.stringify(journal));
  writeFileSync(join(folder, `${tag}.sql`), statements.join('--> statement-breakpoint\n'));
  return folder;
}
