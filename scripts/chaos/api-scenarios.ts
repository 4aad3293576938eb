/**
 * Chaos on the API side: SIGTERM while clients keep writing, and a disk that fills up.
 */
import { Database } from 'bun:sqlite';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SpawnedServer } from '../../src/test-support/spawn-server';
import { fillTmpfs, onTmpfs, tmpfsAvailable } from '../../src/test-support/tmpfs';
import { APP, createFleet, fanoutResult, now, seconds, send, SERVICE_KEY, type ScenarioResult } from './fleet';

/**
 * `clients` clients each send a notification to one user after another; SIGTERM after `afterMs`.
 * Every send answered 200 is accepted; after a restart all of them must arrive.
 */
export async function sigtermScenario(options: { devices: number; clients: number; afterMs: number }): Promise<ScenarioResult> {
  const fleet = await createFleet(options.devices);
  try {
    const { dir, dbPath, config } = fleet.prepare();
    let server = await fleet.spawn(dir, config);
    let accepted = 0;
    let refused = 0;
    let next = 0;
    let stop = false;
    const client = async () => {
      while (!stop && next < options.devices) {
        const user = `user-${next++}`;
        try {
          const queued = await send(server, [user]);
          accepted += queued;
        } catch {
          // Refused or cut by the shutdown: not accepted, so not owed.
          refused++;
        }
      }
    };
    const clients = Array.from({ length: options.clients }, client);
    await Bun.sleep(options.afterMs);
    const termAt = now();
    const exitCode = await server.stop();
    const stopSeconds = seconds(now() - termAt);
    stop = true;
    await Promise.all(clients);
    server = await fleet.spawn(dir, config);
    try {
      const restartedAt = now();
      const result = await fanoutResult(fleet, dbPath, accepted, 5 * 60_000);
      return { scenario: 'sigterm', ...result, drainSeconds: seconds(now() - restartedAt), exitCode, stopSeconds, refused };
    } finally {
      await server.stop();
    }
  } finally {
    await fleet.close();
  }
}

/** Whether this machine lets an unprivileged process mount a tmpfs in its own user and mount namespace. */
/**
 * Devices are registered through the API until writes answer 507; /readyz must then answer 503.
 * Space returns and /readyz must come back to 200 without a restart, writes succeed again, every
 * acknowledged device must be in the database and the file must pass its integrity check.
 * With `unshare` the database lives on a 16 MB tmpfs of the server's own mount namespace, filled
 * by a file (a real ENOSPC); otherwise the database is limited by `database.max_size_mb` and a
 * table the scenario drops makes room.
 */
export async function diskFullScenario(): Promise<ScenarioResult> {
  const tmpfs = await tmpfsAvailable();
  const fleet = await createFleet(0, { dbDir: tmpfs ? (dir) => join(dir, 'fs') : undefined });
  try {
    const { dir, dbPath, config } = fleet.prepare();
    let server: SpawnedServer;
    let makeRoom: () => void;
    if (tmpfs) {
      const mount = join(dir, 'fs');
      mkdirSync(mount, { recursive: true });
      // The seeded database moves onto the tmpfs once it is mounted, then the server starts there.
      const seeded = join(dir, 'islet.db');
      server = await fleet.spawn(dir, config, onTmpfs(mount, 16, join(import.meta.dir, '../../src/main.ts'), [seeded, join(dir, 'islet.key')]));
      // Leave about 1 MB free.
      makeRoom = fillTmpfs(server.proc.pid, mount, 1024 * 1024);
    } else {
      server = await fleet.spawn(dir, config.replace('[database]\n', '[database]\nmax_size_mb = 4\n'));
      const side = new Database(dbPath);
      side.exec('PRAGMA busy_timeout = 5000');
      side.exec('CREATE TABLE filler (b BLOB)');
      const pages = side.query<{ page_count: number; page_size: number }, []>('SELECT * FROM pragma_page_count, pragma_page_size').get()!;
      side.query('INSERT INTO filler VALUES (zeroblob(?))').run(Math.max(0, 4 * 1024 * 1024 - pages.page_count * pages.page_size - 1024 * 1024));
      makeRoom = () => side.exec('DROP TABLE filler');
    }
    try {
      const register = (i: number) =>
        fetch(`${server.url}/api/apps/${APP}/devices`, {
          method: 'POST',
          headers: { 'x-service-key': SERVICE_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ endUserId: `full-${i}`, platform: 'android', token: `token-${i}-${'x'.repeat(500)}` }),
        });
      const acknowledged: string[] = [];
      let refused = 0;
      let i = 0;
      for (; i < 100_000 && refused < 20; i++) {
        const res = await register(i);
        if (res.ok) acknowledged.push(((await res.json()) as { device: { id: string } }).device.id);
        else if (res.status === 507) refused++;
        else throw new Error(`register answered ${res.status}`);
      }
      const readyWhileFull = (await fetch(`${server.url}/readyz`)).status;
      const roomAt = now();
      makeRoom();
      let ready = 0;
      while (ready !== 200 && now() - roomAt < 30_000) {
        ready = (await fetch(`${server.url}/readyz`)).status;
        if (ready !== 200) await Bun.sleep(100);
      }
      const recoverSeconds = seconds(now() - roomAt);
      const after = await register(i + 1);
      if (after.ok) acknowledged.push(((await after.json()) as { device: { id: string } }).device.id);
      // Copy the database as the server left it, quiet now (its tmpfs vanishes with its namespace;
      // SQLite itself would resolve /proc/<pid>/root to this process's own root).
      const copy = join(dir, 'after.db');
      const source = tmpfs ? join(`/proc/${server.proc.pid}/root`, dbPath) : dbPath;
      for (const suffix of ['', '-wal']) if (existsSync(source + suffix)) copyFileSync(source + suffix, copy + suffix);
      const exitCode = await server.stop();
      const check = new Database(copy);
      const ids = new Set(check.query<{ id: string }, []>('SELECT id FROM devices').all().map((r) => r.id));
      const integrity = check.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check;
      check.close();
      const present = acknowledged.filter((id) => ids.has(id)).length;
      return {
        scenario: 'disk-full',
        accepted: acknowledged.length,
        delivered: present,
        lost: acknowledged.length - present,
        failed: refused,
        duplicates: 0,
        drainSeconds: recoverSeconds,
        readyWhileFull,
        readyAfter: ready,
        writeAfter: after.status,
        integrity,
        exitCode,
        filesystem: tmpfs ? 'tmpfs 16 MB (unshare)' : 'database.max_size_mb = 4',
      };
    } finally {
      if (existsSync(`/proc/${server.proc.pid}`)) await server.stop();
    }
  } finally {
    await fleet.close();
  }
}
