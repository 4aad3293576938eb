import { SQL } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { until } from '../../test-support/eventually';

/*
 * Two real `serve` processes on one PostgreSQL database: A with `[delivery] worker = false` (it
 * answers the API, queues and sends nothing) and B, which sends. What is done through A (or the
 * command line) must reach B at once: queued pushes, changed credentials, a rotated App Secret, a
 * reset admin token, and the console's live page on B.
 */
const APP = 'cross';
const SECRET = 'sk_cross_e2e';
const MAIN = join(import.meta.dir, '..', '..', 'main.ts');

/** Generously: two served processes on a busy machine. */
const WAIT = { timeoutMs: 20_000, intervalMs: 20 };

describe('changes through one instance reach the other at once (two served processes, one PostgreSQL)', () => {
  let apns: ApnsStandin;
  let db: SQL;
  let dir: string;
  let env: Record<string, string>;
  let a: SpawnedServer;
  let b: SpawnedServer;
  let adminToken = '';
  const keys = [apnsKey(), apnsKey()];

  /** `islet admin-token reset` beside the running instances: the new token. */
  const resetAdminToken = () => {
    const run = Bun.spawnSync([process.execPath, MAIN, 'admin-token', 'reset', '--config', join(dir, 'b', 'islet.toml')], { cwd: join(dir, 'b'), env: { ...process.env, ...env } });
    expect(run.exitCode).toBe(0);
    return run.stdout.toString().trim();
  };
  const via = (server: SpawnedServer) => serverClient(() => server.url, SECRET, adminToken);
  const setApns = (key: (typeof keys)[number]) =>
    via(a).admin('PUT', `/api/admin/apps/${APP}/apns`, { bundleId: 'com.example.cross', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
  const send = (title: string) => via(a).postOk(`/api/apps/${APP}/notifications/send`, { templateSlug: 'alert', variables: { title } });
  /** Pushes of that title the stand-in accepted (its provider token verified). */
  const received = (title: string) => apns.requests.filter((r) => r.keyId !== undefined && r.raw.includes(title)).length;

  beforeAll(async () => {
    await sharedPostgres();
    // The stand-in knows only the second key: the first is refused (403 InvalidProviderToken).
    apns = await startApnsStandin({ keys: [keys[1]!] });
    dir = mkdtempSync(join(tmpdir(), 'islet-cross-'));
    const { url } = await testDatabase();
    db = new SQL(url, { max: 1 });
    env = { ISLET_DATABASE_URL: url, ISLET_SECURITY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'true' };
    // No [admin] token: the database keeps its hash, which the command line resets.
    const config = `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n`;
    const serve = async (name: string, extra: Record<string, string>) => {
      mkdirSync(join(dir, name));
      return spawnServer(join(dir, name), config, undefined, { database: 'sqlite', env: { ...env, ...extra } });
    };
    b = await serve('b', {});
    a = await serve('a', { ISLET_DELIVERY_WORKER: 'false' });
    adminToken = resetAdminToken();
    expect((await via(a).admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'alert', title: '{{ title }}', body: 'x' }] })).status).toBe(201);
    expect((await via(a).call('POST', `/api/apps/${APP}/devices`, { endUserId: 'u1', platform: 'ios', token: apnsToken('cross') })).status).toBe(200);
  }, POSTGRES_STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.close();
    await apns?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a push queued through A, which sends nothing, is sent by B; A’s console live page hears of what B queued and sent', async () => {
    expect((await setApns(keys[1]!)).status).toBe(200);
    await send('first through A');
    await until('B sends what A queued', () => received('first through A') === 1, WAIT);
    // A's page: A neither queues nor sends this one, so only B's notice can tell it.
    const signIn = await fetch(`${a.url}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: adminToken }) });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const abort = new AbortController();
    const events = await fetch(`${a.url}/console/api/events`, { headers: { cookie }, signal: abort.signal });
    const reader = events.body!.getReader();
    let text = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    })();
    await until('the event stream on A opens', () => text.includes('event: ready'), WAIT);
    await via(b).postOk(`/api/apps/${APP}/notifications/send`, { templateSlug: 'alert', variables: { title: 'through B' } });
    await until('B sends what it queued', () => received('through B') === 1, WAIT);
    await until('A’s live page hears of B’s change', () => text.includes('event: change'), WAIT);
    abort.abort();
    await reading;
  }, 60_000);

  test('credentials changed through A: B sends with them at once, and a channel B paused on a refused key resumes', async () => {
    expect((await setApns(keys[0]!)).status).toBe(200);
    await send('refused key');
    // B sends with the key the stand-in refuses: the channel pauses and the push is held.
    await until('B pauses the channel', async () => (await db`SELECT count(*)::int AS n FROM deliveries WHERE reason = 'apns channel paused'`)[0].n === 1, WAIT);
    expect((await via(a).admin('GET', `/api/admin/apps/${APP}`)).body.channels.apns.status).toBe('paused');
    expect((await setApns(keys[1]!)).status).toBe(200);
    await until('the held push goes with the new key', () => received('refused key') === 1, WAIT);
    await send('new key');
    await until('the next push goes with the new key', () => received('new key') === 1, WAIT);
    // The first try was refused (no verified key); what went since went with the new key.
    const tries = apns.requests.filter((r) => r.raw.includes('refused key') || r.raw.includes('new key')).map((r) => r.keyId ?? 'refused');
    expect(tries).toEqual(['refused', keys[1]!.keyId, keys[1]!.keyId]);
  }, 60_000);

  test('concurrent first PUTs of one stream key through A and B start one activity; the other updates it', async () => {
    expect((await via(a).call('POST', `/api/apps/${APP}/devices`, { endUserId: 'rider', platform: 'android', token: 'fcm-rider' })).status).toBe(200);
    const put = (server: SpawnedServer, key: string) =>
      via(server).call('PUT', `/api/apps/${APP}/live-activity-streams/${key}`, {
        templateSlug: 'status-tracker',
        attributes: { title: 'Your ride', steps: 'Assigned,Arriving,Riding' },
        contentState: { currentStep: '0', status: server === a ? 'through A' : 'through B' },
        targetUsers: ['rider'],
      });
    // Each key's first PUT reaches both instances at once: 20 races.
    const keys = Array.from({ length: 20 }, (_, n) => `race-${n}`);
    const answers = await Promise.all(keys.map((key) => Promise.all([put(a, key), put(b, key)])));
    expect(answers.flat().map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(answers.map((pair) => pair.map((r) => r.body.status).sort())).toEqual(keys.map(() => ['started', 'updated']));
    expect((await db`SELECT count(*)::int AS n FROM activities WHERE app_id = ${APP}`)[0].n).toBe(20);
  }, 60_000);

  // Through the real coordination of a served process; that B hears the notification rather than
  // waiting out the backstop is shown with a still clock in modules/apps/app-row-cache.cluster.test.ts.
  test('an App Secret rotated through A: B, which had authenticated with it, refuses it too (notified, at the latest after APP_ROW_TTL_MS)', async () => {
    const created = await via(a).admin('POST', '/api/admin/apps', { id: 'rotated', plan: 'pro' });
    expect(created.status).toBe(201);
    const list = async (server: SpawnedServer, key: string) => (await serverClient(() => server.url, key, adminToken).call('GET', '/api/apps/rotated/live-activities')).status;
    const old: string = created.body.appSecret;
    expect(await list(b, old)).toBe(200);
    const rotated = await via(a).admin('POST', '/api/admin/apps/rotated/secrets/app-secret');
    expect(rotated.status).toBe(200);
    expect(await list(a, old)).toBe(401);
    await until('B refuses the old App Secret', async () => (await list(b, old)) === 401, WAIT);
    expect(await list(b, rotated.body.appSecret)).toBe(200);
  }, 60_000);

  test('islet admin-token reset: B refuses the old token at its next request and accepts the new one', async () => {
    const old = adminToken;
    expect((await serverClient(() => b.url, SECRET, old).admin('GET', '/api/admin/apps')).status).toBe(200);
    adminToken = resetAdminToken();
    expect((await serverClient(() => b.url, SECRET, old).admin('GET', '/api/admin/apps')).status).toBe(401);
    expect((await serverClient(() => a.url, SECRET, old).admin('GET', '/api/admin/apps')).status).toBe(401);
    expect((await via(b).admin('GET', '/api/admin/apps')).status).toBe(200);
  }, 60_000);
});
