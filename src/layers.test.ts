import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { explainCycle, fileImports, importCycles, isTestCode, reaches, tsFiles } from './test-support/import-graph';
import { lineCount, migrationTables, reasonMatches, tableMentions } from './test-support/source-scan';

/**
 * The layers of src (docs/development.md, "Layout"): lib → db → queue → modules → composition.
 * Nothing imports upward, no production file reaches itself, files stay small, the data seam holds
 * no feature's statement. Production files: every `.ts` under src but tests and src/test-support.
 */
const SRC = import.meta.dir;
const production = tsFiles(SRC).filter((file) => !isTestCode(file));
const edges = fileImports(SRC, (file) => !isTestCode(file));
const text = (file: string) => readFileSync(join(SRC, file), 'utf8');

/** The composition root: it builds the app from the features, so nothing below may reach it. */
const COMPOSITION = ['app', 'bootstrap', 'cli-args', 'main', 'server', 'services'];
/** The context names modules' types (the outbox, endpoint health, metrics): reaching it reaches them. */
const CONTEXT = 'context';
const inFolder = (folder: string) => (node: string) => node.startsWith(`${folder}/`);
const above = (...folders: string[]) => (node: string) => COMPOSITION.includes(node) || node === CONTEXT || folders.some((f) => inFolder(f)(node));
const chains = (from: (node: string) => boolean, to: (node: string) => boolean) => reaches(edges, from, to).map((chain) => chain.join(' -> '));

/** Files allowed over 300 lines, each with why; one that no longer is fails, so the list only shrinks. */
const LONG_FILES: Record<string, string> = {
  'client/islet-api.d.ts': 'generated from the API document (npm run client:generate)',
};

/**
 * Statements on features' tables that src/db keeps, each with why. `meta` (the store's own keys:
 * admin token hash, master key canary) is the seam's table, and the move to PostgreSQL copies every
 * table by the names the schema gives it, so neither is listed.
 */
const DB_TABLE_STATEMENTS: Record<string, string> = {
  'db/sqlite/backup-statements.ts': "a backup's and a restore's message counts the apps, live activities and deliveries it holds",
};


describe('layers of src', () => {
  test('no production file reaches itself through the imports of others (type-only and dynamic imports count)', () => {
    const cycles = importCycles(edges);
    expect(cycles.map((cycle) => ({ cycle, imports: explainCycle(edges, cycle) }))).toEqual([]);
    // The graph is read at all, and through folders.
    expect(edges.has('modules/notifications/notifications.service -> modules/notifications/schedule/scheduled-sends')).toBe(true);
    expect(edges.has('db/sqlite/store -> lib/logger')).toBe(true);
  });

  test('no production file imports test code: src/test-support, a test file or bun:test', () => {
    const imports = production.filter((file) => /from '[^']*(?:test-support\/|\.test'|bun:test')/.test(text(file)));
    expect(imports).toEqual([]);
    expect(chains((node) => !isTestCode(`${node}.ts`), (node) => isTestCode(`${node}.ts`))).toEqual([]);
  });

  test('src/db reaches nothing of src/queue, src/modules, the context or the composition root, directly or through others', () => {
    expect(chains(inFolder('db'), above('queue', 'modules'))).toEqual([]);
    expect(production.filter((file) => file.startsWith('db/')).length).toBeGreaterThan(10);
  });

  test('src/queue reaches nothing of src/modules, the context or the composition root (passes while the folder is absent)', () => {
    expect(chains(inFolder('queue'), above('modules'))).toEqual([]);
    if (existsSync(join(SRC, 'queue'))) expect(production.some((file) => file.startsWith('queue/'))).toBe(true);
  });

  test('src/lib imports nothing of the app: only other files of src/lib', () => {
    const out = [...edges.keys()].filter((key) => key.startsWith('lib/') && !key.split(' -> ')[1]!.startsWith('lib/'));
    expect(out).toEqual([]);
    expect(production.filter((file) => file.startsWith('lib/')).length).toBeGreaterThan(5);
  });

  test('no production file is over 300 lines, but the listed ones, which still are', () => {
    const long = production.filter((file) => lineCount(text(file)) > 300);
    expect(long.filter((file) => !(file in LONG_FILES)).map((file) => `${file}: ${lineCount(text(file))} lines`)).toEqual([]);
    expect(Object.keys(LONG_FILES).filter((file) => !long.includes(file))).toEqual([]);
  });

  test("src/db holds no statement on a feature's table, but the listed ones (table definitions are not statements)", () => {
    const tables = migrationTables(join(SRC, '..', 'drizzle')).filter((table) => table !== 'meta');
    expect(tables).toContain('deliveries');
    // Drizzle table definitions (the schema files) are not statements; they leave src/db with the tables.
    const definitions = (file: string) => /\b(?:sqliteTable|pgTable)\(/.test(text(file));
    const found = production
      .filter((file) => file.startsWith('db/') && !definitions(file))
      .map((file) => ({ file, statements: tableMentions(text(file), tables) }))
      .filter(({ statements }) => statements.length > 0);
    expect(found.filter(({ file }) => !(file in DB_TABLE_STATEMENTS))).toEqual([]);
    expect(Object.keys(DB_TABLE_STATEMENTS).filter((file) => !found.some((f) => f.file === file))).toEqual([]);
  });

  test('no statement selects or groups deliveries by their reason text: a down hold names its endpoint in hold_endpoint', () => {
    const found = production.map((file) => ({ file, matches: reasonMatches(text(file)) })).filter(({ matches }) => matches.length > 0);
    expect(found).toEqual([]);
  });

  test('drizzle-orm stays out of the serving process: only table definitions and test code import it or a tables file for its values', () => {
    // The migrations are applied by db/migrations.ts and statements are Islet's own SQL, so the
    // ORM (a few MB of memory, tens of ms at start) is left out of the binary's run time; tables
    // files are for drizzle-kit and row types (`import type`). db/postgres/schema-model.ts serves the parity test.
    const definitions = (file: string) => file.endsWith('.tables.ts') || file === 'db/table.ts' || file === 'db/postgres/schema-model.ts';
    const valueImport = /^import (?!type\b)[^;]*?from '(?:drizzle-orm[^']*|[^']*\.tables)';/m;
    expect(production.filter((file) => !definitions(file) && valueImport.test(text(file)))).toEqual([]);
  });

  test("the compiled binary is told by Bun.main (lib/compiled-binary.ts), never by import.meta.path: --bytecode keeps the build machine's path there", () => {
    const byMeta = production.filter((file) => /import\.meta\.(?:path|dir|url)[^\n]*\$bunfs|\$bunfs[^\n]*import\.meta\.(?:path|dir|url)/.test(text(file)));
    expect(byMeta).toEqual([]);
    expect(production.filter((file) => text(file).includes('inCompiledBinary()')).length).toBeGreaterThanOrEqual(3);
  });
});
