import { SQL } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { closedPort } from '../../test-support/closed-port';
import { until } from '../../test-support/eventually';

const SECRET = 'sk_shared_state_e2e';
const ADMIN = 'admin-shared-state';
const key = apnsKey();
const dirs: string[] = [];
const servers: SpawnedServer[] = [];
let url: string;
let apns: ApnsStandin;

beforeAll(async () => {
  await sharedPostgres();
  url = (await testDatabase()).url;
  apns = await startApnsStandin({ keys: [key] });
}, POSTGRES_STARTUP_TIMEOUT_MS);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await apns?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** One more instance of the installation: its own folder, the same PostgreSQL database and configuration. */
async function instance(): Promise<SpawnedServer> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-shared-state-'));
  dirs.push(dir);
  // One master key for all: the credentials sealed by one instance are opened by the others.
  const config = `[security]\nmaster_key = "${Buffer.alloc(32, 7).toString('base64')}"\n[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[[apps]]\nid = "shared"\napp_secret = "${SECRET}"\n`;
  const server = await spawnServer(dir, config, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } });
  servers.push(server);
  return server;
}

/** Two served processes on a busy machine: up to 20 s; a failure shows what they printed. */
const WAIT = { timeoutMs: 20_000, intervalMs: 50, detail: () => `output:\n${servers.map((s) => s.output()).join('\n---\n')}` };

describe('state shared by two served instances on one PostgreSQL', () => {
  test(
    'signed in on A, the console session works on B; the endpoint A took down is listed down once on B, which holds its deliveries without trying it',
    async () => {
      const a = await instance();
      const onA = serverClient(() => a.url, SECRET, ADMIN);
      const signIn = await fetch(`${a.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: ADMIN }) });
      expect(signIn.status).toBe(200);
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const { csrfToken } = (await signIn.json()) as { csrfToken: string };

      const wrong = `https://127.0.0.1:${closedPort()}`;
      const credentials = { bundleId: 'com.example.shared', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: wrong, ca: apns.ca };
      expect((await onA.admin('PUT', '/api/admin/apps/shared/apns', credentials)).status).toBe(200);
      const users = ['u1', 'u2', 'u3', 'u4'];
      for (const endUserId of users)
        expect((await onA.call('POST', '/api/apps/shared/devices', { endUserId, platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() })).status).toBe(200);
      const start = { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' }, targetUsers: users };
      expect((await onA.call('POST', '/api/apps/shared/live-activities', start)).status).toBe(200);
      type Endpoint = { endpoint: string; state: string; held: number };
      const endpoints = async (client: typeof onA) => (await client.admin('GET', '/api/admin/apps/shared/endpoints')).body.endpoints as Endpoint[];
      await until('A takes the endpoint down', async () => (await endpoints(onA)).some((e) => e.endpoint === wrong && e.state === 'down' && e.held === users.length), WAIT);

      // B starts after the outage began: it never sent to the endpoint itself.
      const b = await instance();
      const onB = serverClient(() => b.url, SECRET, ADMIN);
      expect((await fetch(`${b.url}/console/api/session`, { headers: { cookie } })).status).toBe(200);
      expect((await fetch(`${b.url}/api/admin/apps`, { headers: { cookie } })).status).toBe(200);
      // Listed once, down; all four held once no probe is out (a probe takes one held delivery for a moment).
      await until('B lists the endpoint down with all four held', async () => {
        const listed = (await endpoints(onB)).filter((e) => e.endpoint === wrong);
        expect(listed.map((e) => e.state)).toEqual(['down']);
        return listed[0]!.held === users.length;
      }, WAIT);
      expect((await onB.admin('GET', '/api/admin/apps/shared/channels')).body.channels).toHaveLength(1);

      // A stops; what is queued through B now is held by B, which learnt of the outage from A's record.
      expect(await a.stop()).toBe(0);
      expect((await onB.call('POST', '/api/apps/shared/live-activities', { ...start, attributes: { label: 'Second' } })).status).toBe(200);
      await until('B holds the new deliveries', async () => (await endpoints(onB)).some((e) => e.endpoint === wrong && e.held === 2 * users.length), WAIT);
      expect(b.output()).not.toContain('delivery channel down');

      // Signed out on B: refused on B (and the session is gone from the table every instance reads).
      const signOut = await fetch(`${b.url}/console/api/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrfToken } });
      expect(signOut.status).toBe(200);
      expect((await fetch(`${b.url}/console/api/session`, { headers: { cookie } })).status).toBe(401);
    },
    90_000,
  );

  test(
    'wrong admin tokens spread over two instances count once for the address, for both',
    async () => {
      const [a, b] = [await instance(), await instance()];
      const guess = (server: SpawnedServer, token: string) =>
        fetch(`${server.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      // Five failures are free: three on A and three on B lock the address (for a second: the wait itself is timed, so the row is read).
      for (let i = 0; i < 6; i++) expect((await guess(i % 2 ? b : a, `guess-${i}`)).status).toBe(401);
      const db = new SQL(url, { max: 1 });
      try {
        const rows = await db`SELECT failures, locked_until > last_at AS locked FROM auth_failures WHERE name = 'admin-token'`;
        expect([...rows]).toEqual([{ failures: 6, locked: true }]);
      } finally {
        await db.close();
      }
    },
    90_000,
  );
});
