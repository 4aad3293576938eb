import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * drizzle-kit's migrations, applied as drizzle-orm's migrator applies them, without loading
 * drizzle-orm: its migrator pulls the whole ORM into the process (a few MB of memory at every start),
 * and a serving process otherwise runs its own SQL (db/sql). Same folder layout (meta/_journal.json,
 * `<tag>.sql` split at `--> statement-breakpoint`), same record (`__drizzle_migrations`: the file's
 * SHA-256 and the journal's `when`), same rule: every migration newer than the last one recorded is
 * applied, in journal order, in one transaction. migrations.test.ts checks both databases against
 * drizzle-orm's own migrator.
 */
export interface Migration {
  /** The statements of `<tag>.sql`, split where drizzle-kit marks a breakpoint. */
  statements: string[];
  /** The journal's `when`: the order, and what the record's `created_at` holds. */
  when: number;
  /** SHA-256 of the file, hex. */
  hash: string;
}

interface Journal {
  entries: { tag: string; when: number }[];
}

/** The journal of a migrations folder. */
export function readJournal(folder: string): Journal {
  return JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
}

/** Every migration of the folder, in journal order. */
export function readMigrations(folder: string): Migration[] {
  return readJournal(folder).entries.map(({ tag, when }) => {
    const text = readFileSync(join(folder, `${tag}.sql`), 'utf8');
    return { statements: text.split('--> statement-breakpoint'), when, hash: createHash('sha256').update(text).digest('hex') };
  });
}

/** The migrations newer than the last recorded (`lastWhen`, the record's newest `created_at`; undefined when none is). */
export const pendingMigrations = (all: Migration[], lastWhen: number | undefined): Migration[] =>
  lastWhen === undefined ? all : all.filter((m) => lastWhen < m.when);
