import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, startPostgres, testDatabase, type PostgresServer } from '../../test-support/postgres';
import { testCertificate } from '../../test-support/tls';
import { migratePostgres } from './migrate';
import { serverMajorVersion, serverVersionProblem } from './diagnose';

/** The PostgreSQL migrations this build ships. */
const SHIPPED = (JSON.parse(readFileSync(join(import.meta.dir, '../../../drizzle-pg/meta/_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

const MAIN = join(import.meta.dir, '..', '..', 'main.ts');
const dir = mkdtempSync(join(tmpdir(), 'islet-pg-check-'));
let tlsServer: PostgresServer | undefined;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await tlsServer?.stop();
});

/** `islet <command>` with the url given as ISLET_DATABASE_URL (and any other environment). */
function islet(command: string[], env: Record<string, string>) {
  const res = Bun.spawnSync([process.execPath, MAIN, ...command], {
    cwd: dir,
    env: { ...process.env, ISLET_CONFIG: '', ISLET_DATABASE_PATH: join(dir, 'islet.db'), ...env },
    stdout: 'pipe',
    stderr: 'pipe',
    // A serve that did not refuse would run until killed.
    timeout: 20_000,
  });
  return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
}
/** Each command line run starts bun (0.5-1 s, more on a busy machine). */
const CLI_TIMEOUT_MS = 30_000;
const checkConfig = (url: string, env: Record<string, string> = {}) => islet(['check-config'], { ISLET_DATABASE_URL: url, ...env });

async function closedPort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('check-config with [database] url', () => {
  test('connects, redacts the password, and says what it found (version, migrations applied, what applies the rest)', async () => {
    const { url, server } = await testDatabase();
    const res = checkConfig(url);
    expect(res.code).toBe(0);
    expect(res.out).toContain(`"url": "postgres://postgres:[redacted]@127.0.0.1:${server.port}/`);
    expect(res.out + res.err).not.toContain(server.password);
    expect(res.err).toMatch(new RegExp(`^PostgreSQL 17\\.\\d+ at 127\\.0\\.0\\.1:${server.port}/t_\\w+ as postgres: connected; 0 of ${SHIPPED} migrations applied \\(serve and migrate apply the rest\\)\\.$`, 'm'));
    await migratePostgres({ url, poolSize: 1 });
    expect(checkConfig(url).err).toContain(`connected; ${SHIPPED} of ${SHIPPED} migrations applied`);
  }, CLI_TIMEOUT_MS);

  test('nothing listening on the port: unreachable, exit 1', async () => {
    const res = checkConfig(`postgres://postgres:pw@127.0.0.1:${await closedPort()}/islet`);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/database\.url: cannot reach PostgreSQL at 127\.0\.0\.1:\d+: the connection was refused or the host is unknown/);
  }, CLI_TIMEOUT_MS);

  test('a wrong password: authentication failed, and the wrong password is not shown', async () => {
    const { url, server } = await testDatabase();
    const res = checkConfig(url.replace(server.password, 'not-the-password'));
    expect(res.code).toBe(1);
    expect(res.err).toContain(`database.url: authentication failed for user "postgres" at 127.0.0.1:${server.port}: check the user and password in the url`);
    expect(res.out + res.err).not.toContain('not-the-password');
  }, CLI_TIMEOUT_MS);

  test('a database that does not exist: says so and how to create it', async () => {
    const { server } = await testDatabase();
    const res = checkConfig(server.url('no_such_db'));
    expect(res.code).toBe(1);
    expect(res.err).toContain(`database.url: database "no_such_db" does not exist at 127.0.0.1:${server.port}: create it (CREATE DATABASE … OWNER "postgres")`);
  }, CLI_TIMEOUT_MS);

  test('a user who may not create schemas nor tables in public, on an unmigrated database: says what to grant', async () => {
    const { url, server, name } = await testDatabase();
    const admin = new SQL(url, { max: 1 });
    await admin.unsafe(`CREATE ROLE islet_limited LOGIN PASSWORD 'limited-pw'`);
    const check = () => checkConfig(`postgres://islet_limited:limited-pw@127.0.0.1:${server.port}/${name}`);
    try {
      const neither = check();
      expect(neither.code).toBe(1);
      expect(neither.err).toContain(
        `database.url: user "islet_limited" may not create what migrating database "${name}" needs: GRANT CREATE ON DATABASE "${name}" TO "islet_limited"; GRANT CREATE ON SCHEMA public TO "islet_limited" (or make the user the database's owner)`,
      );
      await admin.unsafe(`GRANT CREATE ON DATABASE ${name} TO islet_limited`);
      expect(check().err).toContain(`needs: GRANT CREATE ON SCHEMA public TO "islet_limited" (or make`);
      await admin.unsafe('GRANT CREATE ON SCHEMA public TO islet_limited');
      expect(check().code).toBe(0);
    } finally {
      await admin.close();
    }
  }, CLI_TIMEOUT_MS);

  test('TLS: sslmode=require against a server without TLS is refused; verify-full needs the CA as ca_file and then connects over TLS', async () => {
    const { url } = await testDatabase();
    const plain = checkConfig(`${url}?sslmode=require`);
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('does not offer TLS, which the url\'s sslmode requires');

    const cert = testCertificate();
    tlsServer = await startPostgres({ tls: cert });
    const verified = `postgres://postgres:${tlsServer.password}@localhost:${tlsServer.port}/postgres?sslmode=verify-full`;
    const untrusted = checkConfig(verified);
    expect(untrusted.code).toBe(1);
    expect(untrusted.err).toContain(`database.url: the TLS certificate of the server at localhost:${tlsServer.port} is not trusted`);
    expect(untrusted.err).toContain('give the CA it chains to as [database] ca_file');
    writeFileSync(join(dir, 'ca.pem'), cert.cert);
    const trusted = checkConfig(verified, { ISLET_DATABASE_CA_FILE: join(dir, 'ca.pem') });
    expect({ code: trusted.code, err: trusted.err }).toEqual({ code: 0, err: expect.stringContaining(`at localhost:${tlsServer.port}/postgres as postgres over TLS: connected`) });
    const missing = checkConfig(verified, { ISLET_DATABASE_CA_FILE: join(dir, 'missing.pem') });
    expect(missing.err).toContain(`database.ca_file = "${join(dir, 'missing.pem')}": cannot read (ENOENT)`);
  }, POSTGRES_STARTUP_TIMEOUT_MS);
});

describe('commands that open the database, with [database] url', () => {
  // backup and restore say what to use instead (backup-advice.test.ts).
  test('migrate applies the migrations (again: nothing to do); the password is never printed', async () => {
    const { url } = await testDatabase();
    for (let round = 0; round < 2; round++) {
      const res = islet(['migrate'], { ISLET_DATABASE_URL: url });
      expect({ code: res.code, out: res.out.trim() }).toEqual({ code: 0, out: expect.stringMatching(/^database PostgreSQL 127\.0\.0\.1:\d+\/t_\w+ is up to date$/) });
      expect(res.out + res.err).not.toContain(new URL(url).password);
    }
    expect(checkConfig(url).err).toContain(`connected; ${SHIPPED} of ${SHIPPED} migrations applied.`);
  }, CLI_TIMEOUT_MS * 3);
});

describe('the server version check', () => {
  test('reads the major version of what servers report', () => {
    expect(['17.10', '15.8 (Debian 15.8-0+deb12u1)', '9.6.24', '14.13 (Ubuntu 14.13-0ubuntu0.22.04.1)', '18beta1'].map(serverMajorVersion)).toEqual([17, 15, 9, 14, 18]);
  });

  test('refuses servers older than 15, takes 15 and newer', () => {
    expect(serverVersionProblem('14.13 (Ubuntu 14.13-0ubuntu0.22.04.1)')).toBe('the server runs PostgreSQL 14.13, older than the oldest Islet supports (15): upgrade it');
    expect(serverVersionProblem('9.6.24')).toContain('PostgreSQL 9.6.24, older than the oldest Islet supports (15)');
    expect(serverVersionProblem('unknown')).toContain('which is not PostgreSQL');
    for (const version of ['15.0', '16.4', '17.10', '18beta1']) expect(serverVersionProblem(version)).toBeUndefined();
  });
});
