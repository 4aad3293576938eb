import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { eventually } from '../../test-support/eventually';
import { POSTGRES_STARTUP_TIMEOUT_MS, testDatabase } from '../../test-support/postgres';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

const SECRET = 'sk_space_test';
let server: SpawnedServer;
let sql: SQL;
let dir: string;

beforeAll(async () => {
  const { url } = await testDatabase();
  dir = mkdtempSync(join(tmpdir(), 'islet-pg-space-'));
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n[[apps]]\nid = "s"\napp_secret = "${SECRET}"\n`,
    undefined,
    { env: { ISLET_DATABASE_URL: url } },
  );
  sql = new SQL(url, { max: 1 });
}, POSTGRES_STARTUP_TIMEOUT_MS);

afterAll(async () => {
  await sql?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const register = (endUserId: string) =>
  fetch(`${server.url}/api/apps/s/devices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-key': SECRET },
    body: JSON.stringify({ endUserId, platform: 'android', token: `tok-${endUserId}` }),
  });

describe('PostgreSQL out of space (a real server process)', () => {
  test('a write refused for lack of space (SQLSTATE 53100) answers 507 like a full disk, /readyz 503, and both recover once writes work', async () => {
    expect((await register('before')).status).toBe(200);
    // The server's own disk_full error, raised where the device row is written (filling a real disk is not the test's to do).
    await sql.unsafe(`CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$;
      CREATE TRIGGER full_disk BEFORE INSERT ON devices FOR EACH ROW EXECUTE FUNCTION full_disk()`);
    const refused = await register('during');
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 507,
      body: { title: 'Insufficient Storage', status: 507, detail: 'PostgreSQL is out of disk space: the database cannot store anything more; nothing of this request was stored' },
    });
    // Only the devices table refuses writes here (a real full disk refuses them all), so a background
    // job's write that lands between a refusal and the probe rightly tells that writes work again:
    // the refusal and the probe go again until a probe follows its refusal (seen once in a full run).
    await eventually(
      async () => {
        expect((await register('during')).status).toBe(507);
        expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ title: 'Service Unavailable', status: 503, detail: 'PostgreSQL is out of disk space' });
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM end_users WHERE id = 'during'`;
    expect(n).toBe(0);

    await sql.unsafe('DROP TRIGGER full_disk ON devices');
    expect((await register('after')).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(server.output()).not.toContain('"status":500');
  }, 30_000);
});
