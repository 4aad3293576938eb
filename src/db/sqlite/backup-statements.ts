import type { Database } from 'bun:sqlite';

/** The SQLite statements backup and restore run on a database file (read-only but for VACUUM INTO's output). */
export function backupStatements(client: Database) {
  return {
    /** A consistent copy at one moment (one read transaction), compacted, written to `file`. */
    vacuumInto(file: string): void {
      client.query('VACUUM INTO ?').run(file);
    },

    /** SQLite's integrity check: `['ok']` when the file is sound, otherwise what is wrong. */
    integrityCheck(): string[] {
      return client.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all().map((r) => r.integrity_check);
    },

    /** Migrations applied to the file, or undefined when it is not an Islet database. */
    appliedMigrations(): number | undefined {
      const table = client.query<{ n: number }, []>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('__drizzle_migrations', 'meta')`).get();
      if (table?.n !== 2) return undefined;
      return client.query<{ n: number }, []>('SELECT count(*) AS n FROM __drizzle_migrations').get()?.n ?? 0;
    },

    meta(key: string): string | undefined {
      return client.query<{ value: string }, [string]>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
    },

    /** What the file holds, for the operator's message. */
    counts(): { apps: number; activities: number; deliveries: number } {
      const n = (table: string) => client.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
      return { apps: n('apps'), activities: n('activities'), deliveries: n('deliveries') };
    },
  };
}
