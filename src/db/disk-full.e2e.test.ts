import { afterEach, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../test-support/spawn-server';
import { fillTmpfs, onTmpfs, tmpfsAvailable } from '../test-support/tmpfs';
import { until } from '../test-support/eventually';

let dir: string;
let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a full disk (real server; the database limited to 1 MB by database.max_size_mb)', () => {
  test('writes answer 507 and /readyz 503 while full; after space returns both recover without a restart, nothing acknowledged is lost, the file is intact', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-full-'));
    const dbPath = join(dir, 'i.db');
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${dbPath}"\nmax_size_mb = 1\n` +
        `[[apps]]\nid = "d"\napp_secret = "sk_disk_full"\n`,
    );
    // What an operator could delete to make room: 300 KB in a table of its own.
    const side = new Database(dbPath);
    side.exec('PRAGMA busy_timeout = 5000');
    side.exec('CREATE TABLE filler (b BLOB)');
    side.query('INSERT INTO filler VALUES (zeroblob(300000))').run();

    const register = (i: number) =>
      fetch(`${server!.url}/api/apps/d/devices`, {
        method: 'POST',
        headers: { 'x-service-key': 'sk_disk_full', 'content-type': 'application/json' },
        body: JSON.stringify({ endUserId: `user-${i}`, platform: 'android', token: `token-${i}-${'x'.repeat(400)}` }),
      });
    const acknowledged: string[] = [];
    let full: Response | undefined;
    for (let i = 0; i < 5000 && !full; i++) {
      const res = await register(i);
      if (res.status === 200 || res.status === 201) acknowledged.push(((await res.json()) as { device: { id: string } }).device.id);
      else full = res;
    }
    expect(full?.status).toBe(507);
    expect(full?.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await full!.json()) as { title: string; status: number; detail: string };
    expect([problem.title, problem.status]).toEqual(['Insufficient Storage', 507]);
    expect(problem.detail).toStartWith('disk is full');
    expect(acknowledged.length).toBeGreaterThan(100);

    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { detail: string }).detail).toStartWith('disk is full');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // Reads still work.
    const listed = await fetch(`${server.url}/api/admin/apps/d/devices?limit=1`, { headers: { authorization: 'Bearer t' } });
    expect(listed.status).toBe(200);

    // Space returns: /readyz finds out with its own probe write, and writes succeed again.
    side.exec('DROP TABLE filler');
    await until('/readyz answers 200 again', async () => (await fetch(`${server!.url}/readyz`)).status === 200, { intervalMs: 200 });
    expect([200, 201]).toContain((await register(99_999)).status);
    expect(await server.stop()).toBe(0);
    server = undefined;

    const ids = new Set(side.query<{ id: string }, []>('SELECT id FROM devices').all().map((r) => r.id));
    expect(acknowledged.every((id) => ids.has(id))).toBe(true);
    expect(side.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
    side.close();
  }, 60_000);
});

describe('a full file system (real server; the database on a 4 MB tmpfs of its own where unshare allows, else database.max_size_mb)', () => {
  test('/readyz answers 503 from the first write refused for lack of space, and stays 503 while a small write would still fit; back to 200 once space returns', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-fs-full-'));
    const tmpfs = await tmpfsAvailable();
    const mount = join(dir, 'fs');
    mkdirSync(mount);
    const config = (dbPath: string, extra = '') =>
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${dbPath}"\n${extra}[[apps]]\nid = "d"\napp_secret = "sk_fs_full"\n`;
    let makeRoom: () => void;
    if (tmpfs) {
      server = await spawnServer(dir, config(join(mount, 'i.db')), onTmpfs(mount, 4, join(import.meta.dir, '..', 'main.ts')));
      // A real ENOSPC: a file takes all but 512 KB.
      makeRoom = fillTmpfs(server.proc.pid, mount, 512 * 1024);
    } else {
      const dbPath = join(dir, 'i.db');
      server = await spawnServer(dir, config(dbPath, 'max_size_mb = 1\n'));
      const side = new Database(dbPath);
      side.exec('PRAGMA busy_timeout = 5000');
      side.exec('CREATE TABLE filler (b BLOB)');
      side.query('INSERT INTO filler VALUES (zeroblob(500000))').run();
      makeRoom = () => {
        side.exec('DROP TABLE filler');
        side.close();
      };
    }
    const register = (i: number) =>
      fetch(`${server!.url}/api/apps/d/devices`, {
        method: 'POST',
        headers: { 'x-service-key': 'sk_fs_full', 'content-type': 'application/json' },
        body: JSON.stringify({ endUserId: `user-${i}`, platform: 'android', token: `token-${i}-${'x'.repeat(400)}` }),
      });
    let refused: Response | undefined;
    for (let i = 0; i < 5000 && !refused; i++) {
      const res = await register(i);
      if (res.status !== 200) refused = res;
    }
    expect(refused?.status).toBe(507);
    expect(((await refused!.json()) as { title: string }).title).toBe('Insufficient Storage');
    // The first refused write, nothing else written since.
    const first = await fetch(`${server.url}/readyz`);
    expect([first.status, ((await first.json()) as { detail: string }).detail]).toEqual([503, expect.stringMatching(/^disk is full/)]);
    // Past the probe's second: its small write may fit, the file system still has no room.
    await Bun.sleep(1100);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    expect((await register(10_000)).status).toBe(507);

    makeRoom();
    await until('/readyz answers 200 again', async () => (await fetch(`${server!.url}/readyz`)).status === 200, { intervalMs: 200 });
    expect((await register(10_001)).status).toBe(200);
  }, 60_000);
});
