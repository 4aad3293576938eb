import { afterEach, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from './test-support/spawn-server';
import { until } from './test-support/eventually';

const MAIN = join(import.meta.dir, 'main.ts');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) =>
  Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: dir, env: { ...process.env, ISLET_CONFIG: '', ...env }, stdout: 'pipe', stderr: 'pipe' });

const startServer = (config: string, env: Record<string, string> = {}) => spawnServer(dir, config, undefined, { env });

describe('command line', () => {
  test('version, --version and -v print the version and commit; --help and -h the usage, also after a command', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    for (const args of [['version'], ['--version'], ['-v'], ['serve', '--version']]) {
      const res = run(args);
      expect({ args, code: res.exitCode, out: res.stdout.toString() }).toEqual({ args, code: 0, out: expect.stringMatching(/^islet \d+\.\d+\.\d+ \(\w+\)\n$/) });
    }
    for (const args of [['--help'], ['-h'], ['backup', '--help']]) {
      const res = run(args);
      expect({ args, code: res.exitCode, out: res.stdout.toString() }).toEqual({ args, code: 0, out: expect.stringContaining('islet --version') });
    }
  }, 30_000);

  test('check-config reports a bad key with its position and exits 1', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    writeFileSync(join(dir, 'bad.toml'), '[server]\nport = "x"\n');
    const res = run(['check-config', '--config', 'bad.toml']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr.toString()).toContain('bad.toml:2:1: server.port must be an integer');
  }, 30_000);

  test('check-config refuses what serve refuses, with the same words: a short master key, a missing key file, TLS files unreadable or not PEM, a missing PostgreSQL CA file', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    writeFileSync(join(dir, 'not-pem.txt'), 'not a certificate\n');
    const cases: [string, string][] = [
      ['[security]\nmaster_key = "c2hvcnQ="\n', 'security.master_key must be base64 of exactly 32 bytes'],
      ['[delivery]\nworker = false\n', 'delivery.worker = false needs [database] url'],
      [
        '[[apps]]\nid = "a"\n[apps.apns]\nbundle_id = "com.example.app"\nteam_id = "TEAM123456"\nkey_id = "ABC123DEFG"\nkey_file = "missing.p8"\n',
        'apns.key_file = "missing.p8": cannot read',
      ],
      ['[server]\ntls_cert = "/etc/islet/tls/fullchain.pem"\ntls_key = "/etc/islet/tls/privkey.pem"\n', 'server.tls_cert: cannot read /etc/islet/tls/fullchain.pem (ENOENT)'],
      ['[server]\ntls_cert = "not-pem.txt"\ntls_key = "not-pem.txt"\n', 'server.tls_cert: not-pem.txt holds no PEM certificate'],
      ['[server]\ntls_key = "not-pem.txt"\n', 'server.tls_cert and server.tls_key must be set together'],
      ['[database]\nurl = "postgres://islet@127.0.0.1:1/islet"\nca_file = "missing-ca.pem"\n', 'database.ca_file = "missing-ca.pem": cannot read (ENOENT)'],
    ];
    for (const [config, message] of cases) {
      writeFileSync(join(dir, 'c.toml'), config);
      const check = run(['check-config', '--config', 'c.toml']);
      const serve = run(['serve', '--config', 'c.toml'], { ISLET_SERVER_PORT: '0', ISLET_DATABASE_PATH: 'db/x.db' });
      expect({ config, check: check.exitCode, serve: serve.exitCode }).toEqual({ config, check: 1, serve: 1 });
      expect(check.stderr.toString()).toContain(message);
      expect(serve.stderr.toString()).toContain(message);
      // serve refused before it made anything.
      expect(readdirSync(dir).sort()).toEqual(['c.toml', 'not-pem.txt']);
    }
  }, 60_000);

  test('the shipped islet.example.toml passes check-config as it ships, and serve serves it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    const example = join(import.meta.dir, '..', 'islet.example.toml');
    const check = run(['check-config', '--config', example]);
    expect({ code: check.exitCode, err: check.stderr.toString() }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(check.stdout.toString())).toMatchObject({ apps: [{ id: 'my-app' }], admin: { token: '[redacted]' } });
    const server = await startServer(readFileSync(example, 'utf8'), { ISLET_SERVER_HOST: '127.0.0.1', ISLET_SERVER_PORT: '0', ISLET_DATABASE_PATH: join(dir, 'i.db') });
    try {
      const res = await fetch(`${server.url}/api/admin/apps/my-app`, { headers: { authorization: 'Bearer change-me' } });
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);

  test('check-config prints the configuration with secrets redacted', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    writeFileSync(join(dir, 'islet.toml'), '[admin]\ntoken = "super-secret-token"\n');
    const res = run(['check-config']);
    expect(res.exitCode).toBe(0);
    expect(res.stdout.toString()).toContain('[redacted]');
    expect(res.stdout.toString()).not.toContain('super-secret-token');
  });

  test('migrate creates the database and can run again', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    expect(run(['migrate'], { ISLET_DATABASE_PATH: 'db/x.db' }).exitCode).toBe(0);
    const again = run(['migrate'], { ISLET_DATABASE_PATH: 'db/x.db' });
    expect(again.exitCode).toBe(0);
    expect(again.stdout.toString()).toContain('db/x.db is up to date');
  }, 30_000);

  test('demo creates the demo app beside a running server, which delivers it, and leaves its Idempotency-Keys in flight alone; a second run exits 1', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    const config = `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n`;
    const server = await startServer(config);
    // A request of the running server holds this key while the demo runs.
    const db = new Database(join(dir, 'i.db'));
    const running = () => db.query<{ state: string }, []>(`SELECT state FROM idempotency_keys WHERE key = 'in-flight'`).get()?.state;
    try {
      db.run(`INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at) VALUES ('other', 'in-flight', 'f', 'running', ${Date.now()})`);
      const res = run(['demo', '--config', 'islet.toml']);
      expect({ code: res.exitCode, err: res.stderr.toString() }).toEqual({ code: 0, err: '' });
      expect(running()).toBe('running');
      const out = res.stdout.toString();
      expect(out).toContain('Demo app "demo" created');
      const appSecret = /App Secret\s+(sk_\S+)/.exec(out)?.[1];
      // The running server serves it with the printed secret, and its worker delivers the demo's pushes.
      const listed = await fetch(`${server.url}/api/apps/demo/live-activities?endUserId=demo-user`, { headers: { 'x-service-key': appSecret ?? '' } });
      expect(((await listed.json()) as { total: number }).total).toBe(2);
      let delivered = 0;
      await until('the worker delivers the demo’s 7 pushes', async () => {
        const res = await fetch(`${server.url}/api/admin/apps/demo/deliveries?status=delivered`, { headers: { authorization: 'Bearer t' } });
        delivered = ((await res.json()) as { total: number }).total;
        return delivered >= 7;
      }, { timeoutMs: 30_000, intervalMs: 100 });
      expect(delivered).toBe(7);
      const again = run(['demo', '--config', 'islet.toml']);
      expect(again.exitCode).toBe(1);
      expect(again.stderr.toString()).toContain('app demo already exists');
    } finally {
      db.close();
      await server.stop();
    }
  }, 30_000);

  test('an unknown command exits 2 with the usage', () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    const res = run(['frobnicate']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr.toString()).toContain('Usage: islet');
  });

  test('the first start generates an admin token, prints it once, and the next start accepts it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    const config = `[server]\nport = 0\nhost = "127.0.0.1"\n[database]\npath = "${join(dir, 'i.db')}"\n`;
    const first = await startServer(config);
    first.proc.kill('SIGTERM');
    await first.proc.exited;
    const stderr = await first.stderr;
    const token = /Admin token[^:]*: (\S+)/.exec(stderr)?.[1];
    expect(token).toMatch(/^adm_/);

    const second = await startServer(config);
    const res = await fetch(`${second.url}/api/admin/apps`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    second.proc.kill('SIGTERM');
    await second.proc.exited;
    expect(await second.stderr).not.toContain('Admin token');
  }, 30_000);

  test('SIGTERM lets a request in flight finish, then exits 0', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-cli-'));
    const { proc, url } = await startServer(`[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n`);
    // A request whose body arrives slowly is in flight when the signal comes.
    let push!: (s: string) => void;
    let end!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        push = (s) => c.enqueue(new TextEncoder().encode(s));
        end = () => c.close();
      },
    });
    const pending = fetch(`${url}/api/admin/apps`, { method: 'POST', body, headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    push('{"id": "slow", ');
    await Bun.sleep(200);
    proc.kill('SIGTERM');
    await Bun.sleep(200);
    push('"name": "Slow"}');
    end();
    const res = await pending;
    expect(res.status).toBe(201);
    expect(await proc.exited).toBe(0);
  }, 30_000);
});
