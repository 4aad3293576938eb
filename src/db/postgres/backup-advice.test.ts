import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { libpqUrl } from './backup-advice';

const MAIN = join(import.meta.dir, '..', '..', 'main.ts');
const dir = mkdtempSync(join(tmpdir(), 'islet-pg-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLI_TIMEOUT_MS = 30_000;

/** `islet <command>` with [database] url given as ISLET_DATABASE_URL; nothing needs to listen there. */
function islet(command: string[], env: Record<string, string>) {
  const res = Bun.spawnSync([process.execPath, MAIN, ...command], {
    cwd: dir,
    env: { ...process.env, ISLET_CONFIG: '', ISLET_DATABASE_PATH: join(dir, 'data', 'islet.db'), ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
}

const URL_WITH_PASSWORD = 'postgres://islet:s3cret%2Fpw@db.internal:6432/islet_prod?sslmode=require';

describe('backup and restore with [database] url', () => {
  test('backup writes nothing, exits 1, and prints the pg_dump command for the same connection without the password', () => {
    const file = join(dir, 'backups', 'islet.dump');
    const res = islet(['backup', file], { ISLET_DATABASE_URL: URL_WITH_PASSWORD });
    expect(res.code).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(res.err).toContain('backup: [database] url names PostgreSQL, which islet backup does not copy (it copies the SQLite file); nothing was written. Back it up with pg_dump:');
    expect(res.err).toContain(`  PGPASSWORD='<password>' pg_dump --format=custom --file='${file}' --dbname='postgres://islet@db.internal:6432/islet_prod?sslmode=require'\n`);
    expect(res.err).toContain("PGPASSWORD: the url's password, left out here (or put it in ~/.pgpass). pg_dump must be of the server's major version or newer");
    expect(res.err).toContain(`sealed with the key file ${join(dir, 'data', 'islet.key')}: keep a copy of that key with the dump`);
    expect(res.out + res.err).not.toContain('s3cret');
  }, CLI_TIMEOUT_MS);

  test('restore changes nothing, exits 1, and prints the pg_restore command (all or nothing, every instance stopped)', () => {
    const res = islet(['restore', 'nightly.dump'], { ISLET_DATABASE_URL: URL_WITH_PASSWORD, ISLET_SECURITY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(res.code).toBe(1);
    expect(res.err).toContain('Stop every Islet instance, then restore a pg_dump archive with pg_restore:');
    expect(res.err).toContain(
      `  PGPASSWORD='<password>' pg_restore --clean --if-exists --no-owner --single-transaction --exit-on-error --dbname='postgres://islet@db.internal:6432/islet_prod?sslmode=require' 'nightly.dump'\n`,
    );
    expect(res.err).toContain('The restored secrets open with the key that sealed them (the master key of [security] master_key now).');
    expect(res.out + res.err).not.toContain('s3cret');
    expect(existsSync(join(dir, 'data', 'islet.db'))).toBe(false);
  }, CLI_TIMEOUT_MS);

  test('without [database] url, backup still copies the SQLite file', () => {
    expect(islet(['migrate'], {}).code).toBe(0);
    const res = islet(['backup', join(dir, 'sqlite.db')], {});
    expect(res.code).toBe(0);
    expect(res.out).toContain(`backup written to ${join(dir, 'sqlite.db')}`);
  }, CLI_TIMEOUT_MS);
});

describe('the libpq URL of a connection', () => {
  test('has no password; a CA file becomes sslrootcert and raises a non-verifying sslmode to verify-full, as Islet connects', () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, 'not read here');
    expect(libpqUrl({ url: URL_WITH_PASSWORD, poolSize: 1, caFile: ca })).toBe(
      `postgres://islet@db.internal:6432/islet_prod?sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`,
    );
    expect(libpqUrl({ url: 'postgres://islet:pw@db:5432/islet?sslmode=verify-ca', poolSize: 1, caFile: ca })).toBe(
      `postgres://islet@db:5432/islet?sslmode=verify-ca&sslrootcert=${encodeURIComponent(ca)}`,
    );
    expect(libpqUrl({ url: 'postgres://islet@db/islet', poolSize: 1 })).toBe('postgres://islet@db/islet');
  });
});
