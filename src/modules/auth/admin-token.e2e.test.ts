import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { until } from '../../test-support/eventually';

const MAIN = join(import.meta.dir, '..', '..', 'main.ts');
let dir: string;
let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, '--config', join(dir, 'islet.toml')], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

describe('islet admin-token reset', () => {
  test('prints a new token; the running server refuses the old one (and its console sessions) at once; the audit log records it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-token-'));
    server = await spawnServer(dir, `[server]\nport = 0\nhost = "127.0.0.1"\n[database]\npath = "${join(dir, 'i.db')}"\n`);
    const printed = () => /Admin token \(shown only now; sign in to the console with it\): (adm_\S+)/.exec(server!.output())?.[1];
    // Printed on stderr just before the "listening" line on stdout; the pipes are read separately.
    await until('the server prints the admin token', () => printed() !== undefined, { timeoutMs: 1_000, intervalMs: 20 });
    const old = printed();
    expect(old).toBeDefined();
    const apps = (token: string, headers: Record<string, string> = {}) => fetch(`${server!.url}/api/admin/apps`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect((await apps(old!)).status).toBe(200);
    const signIn = await fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: old }) });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${server.url}/api/admin/apps`, { headers: { cookie } })).status).toBe(200);

    const reset = await cli(['admin-token', 'reset']);
    expect(reset.code).toBe(0);
    const fresh = reset.out.trim();
    expect(fresh).toMatch(/^adm_[\w-]{43}$/);
    expect((await apps(old!)).status).toBe(401);
    expect((await fetch(`${server.url}/api/admin/apps`, { headers: { cookie } })).status).toBe(401);
    expect((await apps(fresh)).status).toBe(200);
    const audit = (await (await fetch(`${server.url}/api/admin/audit?action=admin-token.reset`, { headers: { authorization: `Bearer ${fresh}` } })).json()) as {
      entries: { actor: string; address: string; target: string }[];
    };
    expect(audit.entries).toMatchObject([{ actor: 'cli', address: 'local', target: 'admin-token' }]);
    expect(JSON.stringify(audit)).not.toContain(fresh);

    // With [admin] token in the configuration, the configuration decides.
    const refused = await cli(['admin-token', 'reset'], { ISLET_ADMIN_TOKEN: 'configured' });
    expect([refused.code, refused.err.includes('[admin] token')]).toEqual([1, true]);
    expect((await cli(['admin-token'])).err).toContain('admin-token needs "reset"');
  }, 30_000);
});
