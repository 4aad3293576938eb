import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Rolling upgrade (docs/cluster.md): during a deploy, instances of version N keep serving a
// database that N+1 has already migrated. That holds while each release's migrations only add
// (tables, nullable columns or columns with a default, indexes): N never names what it does not
// know. A drop, a rename, a type change or a new NOT NULL without a default breaks N's statements,
// so it waits until no instance of the release that still uses the old shape can be running, and
// goes into CONTRACTIONS below with the reason, where a reviewer sees it.

const FOLDER = join(import.meta.dir, '..', '..', '..', 'drizzle-pg');

/** Migrations allowed to contract, by tag, with why no running release still needs what they remove. */
const CONTRACTIONS: Record<string, string> = {};

/** A migration's statements, whitespace collapsed. */
function statements(sql: string): string[] {
  return sql
    .split('--> statement-breakpoint')
    .flatMap((part) => part.split(/;\s*(?:\n|$)/))
    .map((s) => s.replace(/--[^\n]*/g, '').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/**
 * The statements of `sql` that an instance of the previous release could not run beside, each with
 * why. `uniqueIndexes`: names of unique indexes created so far (an `ON CONFLICT` of N may rely on one).
 */
function contractions(sql: string, uniqueIndexes: Set<string> = new Set()): { reason: string; statement: string }[] {
  const all = statements(sql);
  const defaults = new Set(all.flatMap((s) => [...s.matchAll(/ALTER COLUMN "([^"]+)" SET DEFAULT/gi)].map((m) => m[1]!)));
  const found: { reason: string; statement: string }[] = [];
  for (const s of all) {
    const why = (reason: string) => found.push({ reason, statement: s });
    const droppedIndex = /^DROP INDEX (?:IF EXISTS )?(?:"[^"]+"\.)?"([^"]+)"/i.exec(s)?.[1];
    if (/^DROP (TABLE|VIEW|TYPE|SCHEMA|SEQUENCE|FUNCTION)\b/i.test(s)) why('drops what the previous release reads');
    else if (droppedIndex && uniqueIndexes.has(droppedIndex)) why('drops a unique index the previous release may upsert on');
    else if (/\bDROP COLUMN\b/i.test(s)) why('drops a column the previous release reads or writes');
    else if (/\bDROP CONSTRAINT\b/i.test(s)) why('drops a constraint the previous release may upsert on');
    else if (/\bRENAME\b/i.test(s)) why('renames what the previous release names');
    else if (/\bALTER COLUMN "[^"]+" (SET DATA )?TYPE\b/i.test(s)) why("changes a column's type under the previous release");
    else if (/\bALTER COLUMN "[^"]+" DROP DEFAULT\b/i.test(s)) why('drops a default the previous release inserts by');
    else {
      const notNull = /\bALTER COLUMN "([^"]+)" SET NOT NULL\b/i.exec(s)?.[1];
      if (notNull !== undefined && !defaults.has(notNull)) why('makes a column NOT NULL without a default: inserts of the previous release fail');
      const added = /\bADD COLUMN "[^"]+" (.*)$/i.exec(s)?.[1];
      if (added !== undefined && /\bNOT NULL\b/i.test(added) && !/\bDEFAULT\b/i.test(added)) why('adds a NOT NULL column without a default: inserts of the previous release fail');
    }
  }
  return found;
}

describe('PostgreSQL migrations within a release only add', () => {
  test('every migration of drizzle-pg/ lets the previous release keep serving beside it', () => {
    const journal = JSON.parse(readFileSync(join(FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
    expect(journal.entries.length).toBeGreaterThan(2);
    const uniqueIndexes = new Set<string>();
    const refused: Record<string, { reason: string; statement: string }[]> = {};
    for (const { tag } of journal.entries) {
      const sql = readFileSync(join(FOLDER, `${tag}.sql`), 'utf8');
      const found = contractions(sql, uniqueIndexes);
      if (found.length > 0 && !(tag in CONTRACTIONS)) refused[tag] = found;
      for (const m of sql.matchAll(/CREATE UNIQUE INDEX (?:IF NOT EXISTS )?"([^"]+)"/gi)) uniqueIndexes.add(m[1]!);
    }
    expect(refused).toEqual({});
  });

  test('refuses drops, renames, type changes and NOT NULL without a default; lets additions through', () => {
    const refused = (sql: string, unique?: Set<string>) => contractions(sql, unique).map((f) => f.reason);
    expect(refused('DROP TABLE "devices";')).toEqual(['drops what the previous release reads']);
    expect(refused('ALTER TABLE "devices" DROP COLUMN "os_version";')).toEqual(['drops a column the previous release reads or writes']);
    expect(refused('ALTER TABLE "devices" RENAME COLUMN "token" TO "value";')).toEqual(['renames what the previous release names']);
    expect(refused('ALTER TABLE "broadcasts" RENAME TO "casts";')).toEqual(['renames what the previous release names']);
    expect(refused('ALTER TABLE "devices" ALTER COLUMN "pid" SET DATA TYPE bigint;')).toEqual(["changes a column's type under the previous release"]);
    expect(refused('ALTER TABLE "devices" ALTER COLUMN "note" SET NOT NULL;')).toEqual(['makes a column NOT NULL without a default: inserts of the previous release fail']);
    expect(refused('ALTER TABLE "devices" ADD COLUMN "tier" text NOT NULL;')).toEqual(['adds a NOT NULL column without a default: inserts of the previous release fail']);
    expect(refused('ALTER TABLE "devices" ALTER COLUMN "tier" DROP DEFAULT;')).toEqual(['drops a default the previous release inserts by']);
    expect(refused('ALTER TABLE "devices" DROP CONSTRAINT "devices_app_token_unique";')).toEqual(['drops a constraint the previous release may upsert on']);
    expect(refused('DROP INDEX "devices_app_token";', new Set(['devices_app_token']))).toEqual(['drops a unique index the previous release may upsert on']);

    const additive = [
      'CREATE TABLE "things" ("id" text PRIMARY KEY NOT NULL, "n" integer NOT NULL);',
      'ALTER TABLE "devices" ADD COLUMN "note" text;',
      'ALTER TABLE "devices" ADD COLUMN "tier" text DEFAULT \'basic\' NOT NULL;',
      'ALTER TABLE "devices" ALTER COLUMN "note" SET DEFAULT \'\';',
      'ALTER TABLE "devices" ALTER COLUMN "note" SET NOT NULL;',
      'CREATE INDEX "devices_note" ON "devices" USING btree ("note");',
      'DROP INDEX "devices_os";',
      'ALTER TABLE "things" ADD CONSTRAINT "things_fk" FOREIGN KEY ("id") REFERENCES "public"."devices"("id");',
    ].join('--> statement-breakpoint\n');
    expect(contractions(additive, new Set(['devices_app_token']))).toEqual([]);
  });
});
