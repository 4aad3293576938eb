import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { EVERY_CHANGE, makeEveryKindOfChange } from './test-support/audit-changes';
import { spawnServer, type SpawnedServer } from './test-support/spawn-server';
import { newTestCertificate } from './test-support/tls';
import { until } from './test-support/eventually';

const MAIN = join(import.meta.dir, 'main.ts');
let dir: string;
let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The common name of the certificate the server presents on a new connection. */
function servedName(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** Up to 5 s, as a reload takes a moment after SIGHUP. */
const RELOAD = { timeoutMs: 5_000, intervalMs: 50 };

describe('HTTPS served directly ([server] tls_cert / tls_key)', () => {
  test('serves HTTPS, logs the public URL, reloads the certificate on SIGHUP, keeps the old one when the new files are bad; the audit log shows each kind of change with the client address', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-tls-'));
    const first = newTestCertificate('first');
    const second = newTestCertificate('second');
    writeFileSync(join(dir, 'cert.pem'), first.cert);
    writeFileSync(join(dir, 'key.pem'), first.key);
    const config =
      `[server]\nport = 0\nhost = "127.0.0.1"\npublic_url = "https://push.example.test"\ntls_cert = "${join(dir, 'cert.pem')}"\ntls_key = "${join(dir, 'key.pem')}"\n` +
      `[admin]\ntoken = "adm"\n[database]\npath = "${join(dir, 'i.db')}"\n`;
    server = await spawnServer(dir, config);
    expect(server.url).toStartWith('https://127.0.0.1:');
    const listening = JSON.parse(server.output().split('\n').find((l) => l.includes('"listening"'))!);
    expect(listening).toMatchObject({ publicUrl: 'https://push.example.test', tls: true, console: 'https://push.example.test/console' });
    const port = Number(new URL(server.url).port);

    const ca = `${first.cert}${second.cert}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server!.url}${path}`, {
        method,
        headers: { authorization: 'Bearer adm', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        tls: { ca },
      });
      return { status: res.status, body: await res.json() };
    };
    expect(await call('GET', '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    // Plain HTTP on the TLS port gets no answer it could mistake for one.
    expect(await fetch(server.url.replace('https:', 'http:') + '/readyz').then((r) => r.status).catch(() => 'refused')).not.toBe(200);
    expect(await servedName(port, ca)).toBe('first');
    const health = Bun.spawnSync([process.execPath, MAIN, 'healthcheck', '--config', join(dir, 'islet.toml')], { env: { ...process.env, ISLET_SERVER_PORT: String(port) } });
    expect([health.exitCode, health.stdout.toString().trim()]).toEqual([0, 'ready']);

    // Every kind of change over HTTPS lands in the audit log, with the client's address.
    const { secrets } = await makeEveryKindOfChange(call);
    const audit = await call('GET', '/api/admin/audit?limit=100');
    expect(audit.body.entries.map((e: { action: string }) => e.action).reverse()).toEqual([...EVERY_CHANGE]);
    for (const entry of audit.body.entries) expect(entry.address).toBe('127.0.0.1');
    for (const secret of secrets) expect(JSON.stringify(audit.body)).not.toContain(secret);

    // SIGHUP after a renewal: new connections get the new certificate; the server keeps answering.
    writeFileSync(join(dir, 'cert.pem'), second.cert);
    writeFileSync(join(dir, 'key.pem'), second.key);
    server.proc.kill('SIGHUP');
    // The new listener answers before the old one is stopped and the reload is logged.
    // A connection the kernel queued on the old listener in the instant it closes is reset (the
    // port's two listeners share SO_REUSEPORT): the poll, like a client, tries again.
    await until('the second certificate is served and the reload logged', async () => (await servedName(port, ca).catch(() => 'reset')) === 'second' && server!.output().includes('TLS certificate reloaded'), RELOAD);
    expect((await call('GET', '/readyz')).status).toBe(200);

    // A bad renewal (key of another certificate) is refused and the current one stays.
    writeFileSync(join(dir, 'cert.pem'), first.cert);
    server.proc.kill('SIGHUP');
    await until('the failed reload is logged', async () => server!.output().includes('TLS certificate reload failed'), RELOAD);
    expect(await servedName(port, ca)).toBe('second');
    expect((await call('GET', '/readyz')).status).toBe(200);
  }, 60_000);
});
