import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, startPostgres, type PostgresServer } from '../../test-support/postgres';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { until } from '../../test-support/eventually';

const SECRET = 'sk_restart_test';
const ADMIN = 'restart-admin';
let pg: PostgresServer;
let server: SpawnedServer;
let dir: string;

// A server of its own: this test stops it, which the shared one's other users must not see.
beforeAll(async () => {
  pg = await startPostgres();
  const admin = new SQL(pg.url('postgres'), { max: 1 });
  await admin.unsafe('CREATE DATABASE islet');
  await admin.close();
  dir = mkdtempSync(join(tmpdir(), 'islet-pg-restart-'));
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n[[apps]]\nid = "r"\napp_secret = "${SECRET}"\n`,
    undefined,
    { env: { ISLET_DATABASE_URL: pg.url('islet') } },
  );
}, POSTGRES_STARTUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const register = (endUserId: string) =>
  fetch(`${server.url}/api/apps/r/devices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-key': SECRET },
    body: JSON.stringify({ endUserId, platform: 'android', token: `tok-${endUserId}` }),
  });

async function registeredEndUsers(): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const res = await fetch(`${server.url}/api/admin/apps/r/end-users?limit=100&offset=${offset}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const body = (await res.json()) as { endUsers: { id: string }[]; total: number };
    for (const u of body.endUsers) ids.add(u.id);
    if (offset + 100 >= body.total) return ids;
  }
}

describe('PostgreSQL stopped and started again under API load (a real server process)', () => {
  test('requests fail with 503 problem JSON (never 500), /readyz is 503, every 2xx is stored, and service resumes without a restart of Islet', async () => {
    const statuses = new Map<number, number>();
    const acknowledged: string[] = [];
    const problems: unknown[] = [];
    let next = 0;
    let running = true;
    // Four clients registering devices back to back, all through the outage.
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        const id = `u${next++}`;
        const res = await register(id);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) acknowledged.push(id);
        else problems.push(await res.json());
      }
    });
    await until('50 writes are acknowledged', () => acknowledged.length >= 50, { timeoutMs: 30_000, intervalMs: 20 });

    await pg.pause();
    const beforeOutage = acknowledged.length;
    // An outage of a few seconds (the 30 s behave the same, at ten times the test's length).
    await Bun.sleep(3000);
    expect(statuses.get(503)).toBeGreaterThan(20);
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);

    await pg.resume();
    const back = performance.now();
    const duringOutage = acknowledged.length;
    // The pool connects again by itself: the next requests succeed (the limit is the 5 s).
    while (acknowledged.length < duringOutage + 50 && performance.now() - back < 5000) await Bun.sleep(20);
    const recoveredMs = performance.now() - back;
    running = false;
    await Promise.all(clients);

    expect(acknowledged.length).toBeGreaterThanOrEqual(duringOutage + 50);
    // 429 may come too: authentication answers from its cache of app rows without the database, so
    // four clients retrying each 503 at once meet the app's rate limit (1,000 requests/s).
    expect([...statuses.keys()].filter((s) => s !== 429).sort()).toEqual([200, 503]);
    expect(problems[0]).toEqual({ title: 'Service Unavailable', status: 503, detail: 'the database is unreachable; nothing of this request was stored: try again shortly' });
    expect(problems.filter((p) => (p as { status: number }).status === 429).every((p) => (p as { detail: string }).detail === 'rate limit exceeded')).toBe(true);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const stored = await registeredEndUsers();
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(server.proc.exitCode).toBeNull();
    expect(server.output()).not.toContain(pg.password);
    console.log(
      `PostgreSQL restart under load: ${beforeOutage} stored before, ${statuses.get(503)} answered 503 during the outage, ` +
        `service back ${Math.round(recoveredMs)} ms after the server accepted connections again; ${acknowledged.length} acknowledged, all stored`,
    );
  }, 120_000);
});
