import { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { SQL } from 'bun';
import { ConfigError } from '../config/config.load';
import { redactUrlPasswordIn } from '../config/config.redact';
import { tryInstanceLock } from './instance-lock';
import { clientOptions, describeTarget, type PostgresSettings } from './postgres/connection';
import { diagnosePostgres } from './postgres/diagnose';
import { migratePostgres } from './postgres/migrate';
import { defaultMigrationsFolder, shippedMigrationCount } from './sqlite/database';
import { backupStatements } from './sqlite/backup-statements';

/** One table to copy: its name, the columns both databases have, and how each value converts. */
export interface CopyTable {
  name: string;
  columns: string[];
  booleans: Set<string>;
  /** The identity column whose sequence must go past the copied ids, if any. */
  identity?: string;
}

/**
 * Every table of the SQLite database, parents before the tables whose foreign keys point at them,
 * each with the columns it shares with its PostgreSQL twin. Read from the two migrated databases
 * themselves, so a table added later is copied without a change here; a table or column without a
 * twin stops the copy before it starts. Columns only PostgreSQL has (`claimed_by`) keep their default.
 */
export async function copyPlan(source: Database, target: SQL): Promise<CopyTable[]> {
  const twins: { table: string; column: string; type: string; identity: string }[] = await target`
    SELECT table_name AS table, column_name AS column, data_type AS type, is_identity AS identity
    FROM information_schema.columns WHERE table_schema = 'public'`;
  const names = source
    .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name`)
    .all()
    .map((t) => t.name);
  const parents = new Map(names.map((name) => [name, source.query<{ table: string }, []>(`PRAGMA foreign_key_list("${name}")`).all().map((r) => r.table)]));
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    for (const parent of parents.get(name) ?? []) if (parent !== name) visit(parent);
    ordered.push(name);
  };
  for (const name of names) visit(name);
  return ordered.map((name) => {
    const twin = new Map(twins.filter((c) => c.table === name).map((c) => [c.column, c]));
    if (twin.size === 0) throw new Error(`table ${name} of the SQLite database has no PostgreSQL twin`);
    const columns = source.query<{ name: string }, []>(`PRAGMA table_info("${name}")`).all().map((c) => c.name);
    const missing = columns.find((c) => !twin.has(c));
    if (missing) throw new Error(`column ${name}.${missing} of the SQLite database has no PostgreSQL twin`);
    return {
      name,
      columns,
      booleans: new Set(columns.filter((c) => twin.get(c)!.type === 'boolean')),
      identity: columns.find((c) => twin.get(c)!.identity === 'YES'),
    };
  });
}

export interface CopyReport {
  source: string;
  /** `host:port/database as user`: never the password. */
  target: string;
  tables: { name: string; rows: number }[];
  rows: number;
  ms: number;
}

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters per statement. */
const batchRows = (columns: number) => Math.max(1, Math.min(1000, Math.floor(30_000 / columns)));

/**
 * `islet migrate-to-postgres`: copies the SQLite database at `sqlitePath` into the empty
 * PostgreSQL database of `settings`, in one PostgreSQL transaction (all or nothing), from one
 * SQLite snapshot, while holding the instance lock (no server may write meanwhile). Secrets move
 * as stored: sealed with the same master key. Refuses an unreachable target (check-config's
 * diagnostics), a SQLite file that is missing or not migrated to this build, and a target that
 * already holds Islet rows.
 */
export async function migrateToPostgres(sqlitePath: string, settings: PostgresSettings): Promise<CopyReport> {
  const started = performance.now();
  if (!existsSync(sqlitePath)) throw new ConfigError([`no SQLite database at ${sqlitePath} (database.path) to copy`]);
  const lock = tryInstanceLock(sqlitePath);
  if (!lock) throw new Error(`an Islet server is running on ${sqlitePath}: stop it first, then migrate-to-postgres`);
  const source = new Database(sqlitePath, { readwrite: true, create: false });
  try {
    checkMigrated(source, sqlitePath);
    await diagnosePostgres(settings);
    await migratePostgres(settings);
    const client = new SQL(settings.url, clientOptions(settings, { max: 1 }));
    try {
      const plan = await copyPlan(source, client);
      // One snapshot of the SQLite file for every table (WAL lets it stand beside a writer).
      source.exec('BEGIN');
      const tables = await client.begin(async (tx) => {
        for (const table of plan) {
          const [row] = await tx`SELECT EXISTS (SELECT 1 FROM ${tx(table.name)}) AS present`;
          if (row.present) {
            throw new Error(`the target already holds Islet rows (table ${table.name}): migrate-to-postgres copies into an empty database only`);
          }
        }
        const copied: CopyReport['tables'] = [];
        for (const table of plan) copied.push({ name: table.name, rows: await copyTable(source, tx, table) });
        return copied;
      });
      // As after a restore (PostgreSQL's advice): without statistics the planner guesses each table
      // holds a few rows, and until autovacuum analyzes them (a minute or more) it may read a
      // statement's rows through the wrong index (an activity by app instead of by id).
      await client.unsafe('ANALYZE');
      return { source: sqlitePath, target: describeTarget(settings.url), tables, rows: tables.reduce((n, t) => n + t.rows, 0), ms: performance.now() - started };
    } catch (e) {
      // A driver's message could quote the URL; nothing it says may show the password.
      if (e instanceof Error) e.message = redactUrlPasswordIn(e.message, settings.url);
      throw e;
    } finally {
      if (source.inTransaction) source.exec('ROLLBACK');
      await client.close();
    }
  } finally {
    source.close();
    lock.release();
  }
}

function checkMigrated(source: Database, path: string): void {
  const applied = backupStatements(source).appliedMigrations();
  if (applied === undefined) throw new ConfigError([`${path} is not an Islet database`]);
  const shipped = shippedMigrationCount(defaultMigrationsFolder());
  if (applied < shipped) throw new ConfigError([`${path} has ${applied} of this build's ${shipped} migrations: run islet migrate first, then migrate-to-postgres`]);
  if (applied > shipped) throw new ConfigError([`${path} comes from a newer Islet (${applied} migrations; this build has ${shipped}): migrate with that version`]);
}

/** Copies one table in batches, checks the count, and moves its identity past the copied ids. */
async function copyTable(source: Database, tx: SQL, table: CopyTable): Promise<number> {
  const select = source.query<Record<string, unknown>, []>(`SELECT ${table.columns.map((c) => `"${c}"`).join(', ')} FROM "${table.name}"`);
  const expected = source.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${table.name}"`).get()!.n;
  const size = batchRows(table.columns.length);
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length > 0) await tx`INSERT INTO ${tx(table.name)} ${tx(batch, ...table.columns)}`;
    batch = [];
  };
  for (const row of select.iterate()) {
    for (const column of table.booleans) if (row[column] !== null) row[column] = row[column] === 1;
    batch.push(row);
    if (batch.length === size) await flush();
  }
  await flush();
  const [{ n }] = await tx`SELECT count(*)::int AS n FROM ${tx(table.name)}`;
  if (n !== expected) throw new Error(`table ${table.name}: ${expected} rows in SQLite but ${n} in PostgreSQL after the copy; nothing was kept`);
  if (table.identity && n > 0) {
    await tx`SELECT setval(pg_get_serial_sequence(${table.name}, ${table.identity}), (SELECT max(${tx(table.identity)}) FROM ${tx(table.name)}))`;
  }
  return n;
}

/** What the command prints: a line per table, then the totals and the time taken. */
export function formatCopyReport(report: CopyReport): string[] {
  const width = Math.max(...report.tables.map((t) => t.name.length));
  return [
    `copied ${report.source} into PostgreSQL at ${report.target}:`,
    ...report.tables.map((t) => `  ${t.name.padEnd(width)}  ${String(t.rows).padStart(9)} ${t.rows === 1 ? 'row' : 'rows'}`),
    `${report.tables.length} tables, ${report.rows} rows in ${(report.ms / 1000).toFixed(1)} s; the row count of every table verified`,
  ];
}
