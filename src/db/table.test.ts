import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { getTableConfig as pgConfig } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig } from 'drizzle-orm/sqlite-core';
import { boolean, defineTable, id, index, integer, text, time } from './table';

const { sqlite: parents, pg: parentsPg } = defineTable('probe_parents', { id: text().primaryKey() });
const { sqlite: children, pg: childrenPg } = defineTable(
  'probe_children',
  {
    id: id(),
    parentId: text()
      .notNull()
      .references(() => parents.id, { onDelete: 'cascade' }),
    attempts: integer().notNull().default(0),
    enabled: boolean().notNull().default(true),
    nextAttemptAt: time().notNull(),
    claimedBy: text().pgOnly(),
  },
  (t) => [index('probe_children_due').on(t.nextAttemptAt), index('probe_children_claimed').on(t.claimedBy).where(sql`claimed_by IS NOT NULL`)],
);

describe('one table definition', () => {
  test('names each column by its key in snake_case, on both dialects', () => {
    expect(sqliteConfig(children).columns.map((c) => c.name)).toEqual(['id', 'parent_id', 'attempts', 'enabled', 'next_attempt_at']);
    expect(pgConfig(childrenPg).columns.map((c) => c.name)).toEqual(['id', 'parent_id', 'attempts', 'enabled', 'next_attempt_at', 'claimed_by']);
  });

  test('maps each kind of column to the type each schema used: times bigint and booleans boolean on PostgreSQL only', () => {
    expect(sqliteConfig(children).columns.map((c) => c.getSQLType())).toEqual(['integer', 'text', 'integer', 'integer', 'integer']);
    expect(pgConfig(childrenPg).columns.map((c) => c.getSQLType())).toEqual(['bigint', 'text', 'integer', 'boolean', 'bigint', 'text']);
    expect(sqliteConfig(children).columns[0]).toMatchObject({ primary: true, autoIncrement: true });
    expect(pgConfig(childrenPg).columns[0]!.generatedIdentity?.type).toBe('byDefault');
  });

  test('leaves a PostgreSQL-only column, and every index on it, out of the SQLite table', () => {
    expect(sqliteConfig(children).indexes.map((i) => i.config.name)).toEqual(['probe_children_due']);
    expect(pgConfig(childrenPg).indexes.map((i) => i.config.name)).toEqual(['probe_children_due', 'probe_children_claimed']);
  });

  test('points a foreign key at the table of its own dialect', () => {
    const [sqliteFk] = sqliteConfig(children).foreignKeys;
    const [pgFk] = pgConfig(childrenPg).foreignKeys;
    expect(sqliteFk!.reference().foreignTable).toBe(parents);
    expect(pgFk!.reference().foreignTable).toBe(parentsPg);
    expect([sqliteFk!.onDelete, pgFk!.onDelete]).toEqual(['cascade', 'cascade']);
  });
});

describe('the tables files', () => {
  const root = join(import.meta.dir, '..', '..');
  const importsOf = (file: string) => [...readFileSync(join(root, file), 'utf8').matchAll(/\bfrom '([^']+)'/g)].map((m) => m[1]!);

  test('import nothing but drizzle-orm, src/db/table.ts and other tables files, so their imports couple no logic (module-graph.ts)', () => {
    const files = [...new Bun.Glob('src/**/*.tables.ts').scanSync(root)];
    expect(files.length).toBeGreaterThan(15);
    const others = files.flatMap((file) => importsOf(file).filter((spec) => !/^drizzle-orm(\/|$)/.test(spec) && !/\/db\/table$|^\.\/table$/.test(spec) && !spec.endsWith('.tables')).map((spec) => `${file}: ${spec}`));
    expect(others).toEqual([]);
  });

  test('the definition itself imports nothing of the features (drizzle-orm, and the column naming it shares with db/sql)', () => {
    expect(importsOf('src/db/table.ts').filter((spec) => !spec.startsWith('drizzle-orm') && spec !== './sql/columns')).toEqual([]);
  });
});
