import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from './bootstrap';
import { parseConfig } from './config/config.load';
import { silentLogger } from './lib/logger';
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
    expect(first.stderr).toContain('Lost it? `islet admin-token reset` prints a new one.');
    server = await spawnServer(dir, config);
    expect(await adminStatus(server, first.token!)).toBe(200);
  }, 60_000);

  test('a start that generated a token but stopped before serving: the next start replaces it with one it prints', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-first-start-'));
    const config = `[server]\nport = 0\nhost = "127.0.0.1"\n[database]\npath = "${join(dir, 'i.db')}"\n`;
    // What serve does up to the moment it would listen, then stops: as when start-up recovery fails.
    const earlier = await bootstrap(parseConfig(config, join(dir, 'islet.toml')), { logger: silentLogger });
    const unshown = earlier.generatedAdminToken!;
    expect(unshown).toMatch(/^adm_/);
    await earlier.ctx.db.close();
    await earlier.ctx.coordination.close();

    const next = await serveOnce(config);
    expect(next.stderr).toContain('An earlier start generated an admin token but stopped before showing it; this one replaces it.');
    expect(next.token).toMatch(/^adm_/);
    expect(next.token).not.toBe(unshown);

    // Shown now: the start after keeps it (and prints none).
    server = await spawnServer(dir, config);
    expect(await adminStatus(server, next.token!)).toBe(200);
    expect(await adminStatus(server, unshown)).toBe(401);
    await server.stop();
    expect(await server.stderr).not.toContain('Admin token');
    server = undefined;
  }, 60_000);
});
