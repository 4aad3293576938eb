import { afterEach, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnServer, type SpawnedServer } from './test-support/spawn-server';

const MAIN = join(import.meta.dir, 'main.ts');
let dir: string;
let server: SpawnedServer | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  blocker?.close();
  blocker = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Another program listening on a loopback port, as a newcomer's port 8080 may be taken. */
async function occupyPort(): Promise<number> {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
  return (blocker.address() as { port: number }).port;
}

/** Serves once and stops: what the server printed on its terminal (stderr), and the admin token there. */
async function serveOnce(config: string): Promise<{ stderr: string; token?: string }> {
  const once = await spawnServer(dir, config);
  await once.stop();
  const stderr = await once.stderr;
  return { stderr, token: /Admin token[^:]*: (\S+)/.exec(stderr)?.[1] };
}

const adminStatus = async (s: SpawnedServer, token: string) => (await fetch(`${s.url}/api/admin/apps`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('the first start and its admin token', () => {
  test('with the port taken, serve creates nothing (no database, key or token); the next start, on a free port, prints the token, which signs in', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-first-start-'));
    const port = await occupyPort();
    const config = `[server]\nport = ${port}\nhost = "127.0.0.1"\n[database]\npath = "data/islet.db"\n`;
    writeFileSync(join(dir, 'islet.toml'), config);
    const failed = Bun.spawnSync([process.execPath, MAIN, 'serve'], { cwd: dir, env: { ...process.env, ISLET_CONFIG: '' }, stdout: 'pipe', stderr: 'pipe' });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr.toString()).toContain(`islet: cannot listen on 127.0.0.1:${port}: the port is already in use`);
    expect(readdirSync(dir)).toEqual(['islet.toml']);

    blocker!.close();
    blocker = undefined;
    const first = await serveOnce(config);
    expect(first.token).toMatch(/^adm_/);
    expect(first.stderr).toContain(`Lost it? \`npx bun ${relative(dir, MAIN)} admin-token reset --config ${join(dir, 'islet.toml')}\` prints a new one.`);
    server = await spawnServer(dir, config);
    expect(await adminStatus(server, first.token!)).toBe(200);
  }, 60_000);

  test('a start that generated a token, then failed before serving, says so; the next start replaces that token with one it prints', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-first-start-'));
    const config = `[server]\nport = 0\nhost = "127.0.0.1"\n[database]\npath = "${join(dir, 'i.db')}"\n`;
    writeFileSync(join(dir, 'islet.toml'), config);
    const islet = (command: string) =>
      Bun.spawnSync([process.execPath, MAIN, command, '--config', join(dir, 'islet.toml')], { cwd: dir, env: { ...process.env, ISLET_CONFIG: '' }, stdout: 'pipe', stderr: 'pipe' });
    expect(islet('migrate').exitCode).toBe(0);
    // An Idempotency-Key a stopped process left running, whose release at start-up the database refuses.
    const db = new Database(join(dir, 'i.db'));
    db.run(`INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at) VALUES ('a', 'k', 'f', 'running', ${Date.now()})`);
    db.run(`CREATE TRIGGER refuse_recovery BEFORE DELETE ON idempotency_keys BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const failed = islet('serve');
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr.toString()).toBe(
      'islet: start-up recovery failed: disk I/O error\n  The admin token this start generated was not shown: the next start that serves prints a new one.\n',
    );
    const unshown = db.query<{ value: string }, []>(`SELECT value FROM meta WHERE key = 'admin_token_sha256'`).get()?.value;
    expect(unshown).toMatch(/^[0-9a-f]{64}$/);
    db.run('DROP TRIGGER refuse_recovery');
    db.close();

    const next = await serveOnce(config);
    expect(next.stderr).toContain('An earlier start generated an admin token but stopped before showing it; this one replaces it.');
    expect(next.token).toMatch(/^adm_/);
    expect(createHash('sha256').update(next.token!).digest('hex')).not.toBe(unshown);

    // Shown now: the start after keeps it (and prints none).
    server = await spawnServer(dir, config);
    expect(await adminStatus(server, next.token!)).toBe(200);
    await server.stop();
    expect(await server.stderr).not.toContain('Admin token');
    server = undefined;
  }, 60_000);
});
