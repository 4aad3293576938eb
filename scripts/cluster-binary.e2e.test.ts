import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SQL } from 'bun';
import { migratePostgres } from '../src/db/postgres/migrate';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../src/test-support/apns-standin';
import { caddyProxy, type CaddyProxy } from '../src/test-support/caddy-proxy';
import { apnsKey } from '../src/test-support/delivery-fixtures';
import { nextReleaseMigrations } from '../src/test-support/next-release';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../src/test-support/postgres';
import { until } from '../src/test-support/eventually';
import { serverClient } from '../src/test-support/server-client';
import { spawnServer, type SpawnedServer } from '../src/test-support/spawn-server';

// Two instances of the compiled binary on one PostgreSQL, configured as an operator would (the
// database URL and the shared master key from the environment), sending to an APNs stand-in,
// behind the Caddy of deploy/compose (its Caddyfile, the upstreams pointed at the two).
const root = join(import.meta.dir, '..');
const dir = mkdtempSync(join(tmpdir(), 'islet-cluster-bin-'));
const binary = join(dir, 'islet');
const key = apnsKey();
const env = { ISLET_SECURITY_MASTER_KEY: randomBytes(32).toString('base64'), ISLET_DATABASE_URL: '' };
let apns: ApnsStandin;
let a: SpawnedServer;
let b: SpawnedServer;
let proxy: CaddyProxy;
/** Folders removed at the end. */
const cleanup = [dir];

/** Starts one instance of the binary in a folder of its own; `url`: where it served before (its port again). */
async function instance(name: string, url?: string): Promise<SpawnedServer> {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  const port = url ? new URL(url).port : '0';
  const config = `[server]\nport = ${port}\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "cluster-admin"\n`;
  return spawnServer(home, config, [binary], { env, database: 'sqlite' });
}

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--outfile', binary], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  await sharedPostgres();
  env.ISLET_DATABASE_URL = (await testDatabase()).url;
  apns = await startApnsStandin({ keys: [key] });
  a = await instance('a');
  b = await instance('b');
  proxy = await caddyProxy([a.url, b.url].map((url) => url.replace('http://', '')));
}, POSTGRES_STARTUP_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await proxy?.close();
  for (const s of [a, b]) if (s && s.proc.exitCode === null) s.proc.kill('SIGKILL');
  await apns?.close();
  for (const folder of cleanup) rmSync(folder, { recursive: true, force: true });
}, 30_000);

/** The App Secret of app `fleet`, issued through A. */
let secret = '';
type Call = ReturnType<typeof serverClient>['call'];
const client = (s: () => SpawnedServer) => ({
  call: ((...args) => serverClient(() => s().url, secret, 'cluster-admin').call(...args)) as Call,
  admin: serverClient(() => s().url, '', 'cluster-admin').admin,
});
const { call: callA, admin: adminA } = client(() => a);
const { call: callB, admin: adminB } = client(() => b);

/** Two compiled processes on a busy machine: up to 60 s; a failure shows what both printed. */
const WAIT = { timeoutMs: 60_000, intervalMs: 100, detail: () => `A:\n${a.output()}\nB:\n${b.output()}` };

/** Registers `n` iPhones through `call`, one end user each. */
async function registerPhones(call: Call, prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await call('POST', '/api/apps/fleet/devices', { endUserId: `${prefix}${i}`, platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
    expect(res.status).toBe(200);
  }
}

const delivered = async (admin = adminB) => (await admin('GET', '/api/admin/apps/fleet/deliveries?status=delivered')).body.total as number;

describe('two instances of the compiled binary on one PostgreSQL', () => {
  test('both start and answer /readyz', async () => {
    for (const s of [a, b]) expect(await (await fetch(`${s.url}/readyz`)).json()).toEqual({ status: 'ready' });
    expect(a.url).not.toBe(b.url);
  });

  test('what is written through one is read through the other, secrets included (the shared master key)', async () => {
    const created = await adminA('POST', '/api/admin/apps', { id: 'fleet' });
    expect(created.status).toBe(201);
    secret = created.body.appSecret;
    // APNs credentials stored (sealed) through A; B sends with them below, so it opened them.
    const credentials = { bundleId: 'com.example.fleet', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca };
    expect((await adminA('PUT', '/api/admin/apps/fleet/apns', credentials)).status).toBe(200);
    // B authenticates with the App Secret A issued.
    await registerPhones(callB, 'solo', 1);
    const started = await callA('POST', '/api/apps/fleet/live-activities', { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' }, targetUsers: ['solo0'] });
    expect(started.status).toBe(200);
    const id = started.body.activities[0].id as string;
    const read = await callB('GET', `/api/apps/fleet/live-activities/${id}`);
    expect({ status: read.status, id: read.body.id, state: read.body.state }).toEqual({ status: 200, id, state: 'Active' });
    await until('the start reaches the stand-in', async () => (await delivered()) === 1, WAIT);
  }, 60_000);

  test('a fan-out through one instance is delivered exactly once across both', async () => {
    const phones = 200;
    await registerPhones(callA, 'fan', phones);
    const release = { version: 1, status: 'Live', templates: [{ slug: 'hello', title: 'Hello', body: 'To everyone' }] };
    expect((await adminA('POST', '/api/admin/apps/fleet/releases', release)).status).toBe(201);
    const sent = await callA('POST', '/api/apps/fleet/notifications/send', { templateSlug: 'hello' });
    expect(sent.body).toEqual({ messageCount: phones + 1, messageId: expect.stringMatching(/^msg_/) });
    await until('every notification is delivered', async () => (await delivered()) === phones + 2, WAIT);
    const notifications = apns.requests.filter((r) => r.headers['apns-push-type'] === 'alert');
    expect({ requests: notifications.length, tokens: new Set(notifications.map((r) => r.token)).size }).toEqual({ requests: phones + 1, tokens: phones + 1 });
  }, 120_000);

  test("the recipe's Caddy sends requests to both in turn and keeps /metrics to itself", async () => {
    const requests = (s: SpawnedServer) => s.output().split('"path":"/healthz"').length - 1;
    const before = [requests(a), requests(b)];
    for (let i = 0; i < 10; i++) expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
    await Bun.sleep(200);
    // Round robin gives 5 each; a busy machine can make one miss a health check meanwhile.
    const served = [requests(a) - before[0]!, requests(b) - before[1]!];
    expect({ total: served[0]! + served[1]!, both: served.every((n) => n > 0) }).toEqual({ total: 10, both: true });
    expect((await fetch(`${proxy.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${a.url}/metrics`)).status).toBe(200);
  });

  test('both are registered as live instances and listed by GET /api/admin/instances', async () => {
    const sql = new SQL(env.ISLET_DATABASE_URL, { max: 1 });
    try {
      const rows = await sql`SELECT pid FROM cluster_instances WHERE lease_until > (extract(epoch from clock_timestamp()) * 1000)::bigint ORDER BY pid`;
      expect(rows.map((r: { pid: number }) => r.pid)).toEqual([a.proc.pid, b.proc.pid].sort((x, y) => x - y));
    } finally {
      await sql.close();
    }
    // Through either instance, GET /api/admin/instances lists both, one of them leading the scheduler.
    let instances: { id: string; version: string; leader: boolean }[] = [];
    await until('two instances are listed, one leading', async () => {
      instances = (await adminB('GET', '/api/admin/instances')).body.instances;
      return instances.length === 2 && instances.filter((i) => i.leader).length === 1;
    }, WAIT);
    expect(instances.map((i) => i.version)).toEqual(['0.1.0', '0.1.0']);
    const ids = (list: { id: string }[]) => list.map((i) => i.id).sort();
    expect(ids((await adminA('GET', '/api/admin/instances')).body.instances)).toEqual(ids(instances));
    expect(new Set(ids(instances)).size).toBe(2);
  }, 60_000);

  test('an instance of this version keeps serving a database a newer release has migrated (rolling upgrade)', async () => {
    // Release N+1's migration, applied as its first instance would at start: only additions.
    const next = nextReleaseMigrations([
      'CREATE TABLE "next_release_things" ("id" text PRIMARY KEY NOT NULL, "n" integer DEFAULT 0 NOT NULL);',
      'ALTER TABLE "devices" ADD COLUMN "next_tier" text DEFAULT \'basic\' NOT NULL;',
      'ALTER TABLE "deliveries" ADD COLUMN "next_note" text;',
      'CREATE INDEX "deliveries_next_note" ON "deliveries" USING btree ("next_note");',
    ]);
    cleanup.push(dirname(next));
    await migratePostgres({ url: env.ISLET_DATABASE_URL, poolSize: 1 }, next);

    // B (version N) is stopped with SIGTERM while it sends a fan-out queued through it (the
    // stand-in answers slowly, so its claims are in flight): it finishes them and gives back the
    // rest; A sends what is left. Meanwhile reads through the proxy go on being answered.
    const deliveredBefore = await delivered(adminA);
    const sentBefore = apns.requests.length;
    apns.respond(async () => {
      await Bun.sleep(300);
      return undefined;
    });
    // More than A can hold at once (a claim of 200 and the next claimed ahead): with 201 phones, A
    // once claimed every delivery before B did, and B had nothing in flight to stop with.
    await registerPhones(callA, 'wave', 300);
    let reading = true;
    const answers: number[] = [];
    const reads = (async () => {
      while (reading) answers.push((await fetch(`${proxy.url}/readyz`)).status);
    })();
    const fanOut = await callB('POST', '/api/apps/fleet/notifications/send', { templateSlug: 'hello' });
    const users = fanOut.body.messageCount as number;
    expect(users).toBeGreaterThan(200);
    const sql = new SQL(env.ISLET_DATABASE_URL, { max: 1 });
    try {
      const claimedByB = async () =>
        ((await sql`SELECT count(*)::int AS n FROM deliveries WHERE status = 'sending' AND claimed_by = (SELECT id FROM cluster_instances WHERE pid = ${b.proc.pid})`)[0].n as number) > 0;
      await until('B holds claims', claimedByB, WAIT);
    } finally {
      await sql.close();
    }
    expect(await b.stop()).toBe(0);
    // B restarts on the migrated database: it migrates nothing and is ready.
    b = await instance('b', b.url);
    expect(await (await fetch(`${b.url}/readyz`)).json()).toEqual({ status: 'ready' });
    reading = false;
    await reads;
    expect({ answers: answers.length > 0, failed: answers.filter((s) => s !== 200) }).toEqual({ answers: true, failed: [] });
    apns.respond(undefined);
    await until('the fan-out B was stopped in is delivered', async () => (await delivered(adminA)) === deliveredBefore + users, WAIT);
    const fanOutRequests = apns.requests.slice(sentBefore);
    expect({ requests: fanOutRequests.length, tokens: new Set(fanOutRequests.map((r) => r.token)).size }).toEqual({ requests: users, tokens: users });

    // Both still write rows of the tables N+1 changed, and send.
    const before = await delivered();
    await registerPhones(callB, 'late', 3);
    const sent = await callB('POST', '/api/apps/fleet/notifications/send', { templateSlug: 'hello', targetUsers: ['late0', 'late1', 'late2'] });
    expect(sent.body).toEqual({ messageCount: 3, messageId: expect.stringMatching(/^msg_/) });
    await until('the notifications after the upgrade are delivered', async () => (await delivered()) === before + 3, WAIT);
    expect(await delivered(adminA)).toBe(before + 3);
  }, 120_000);

  test('SIGTERM stops each cleanly', async () => {
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
  }, 60_000);
});
