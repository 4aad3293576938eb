import { SQL } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsToken, startApnsStandin, type ApnsStandin } from './test-support/apns-standin';
import { apnsKey } from './test-support/delivery-fixtures';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from './test-support/postgres';
import { spawnServer, type SpawnedServer } from './test-support/spawn-server';
import { eventually, until } from './test-support/eventually';

/*
 * Two real `serve` processes on one PostgreSQL database, both sending to one APNs stand-in: a
 * fan-out queued through one of them is sent exactly once in all, by both; and when one is killed
 * (-9) in the middle of a fan-out, the other takes over its claims once its lease ran out, so every
 * device gets the push and only what the dead one held can arrive twice.
 */
const DEVICES = 4000;
// The default: a shorter lease can run out under a loaded machine's stalls (a live instance then
// looks dead, and its claims are sent twice).
const LEASE_SECONDS = 10;
const APP = 'cluster';
const SERVICE_KEY = 'sk_cluster_e2e';
const ADMIN = 'cluster-admin';

describe('several instances on one PostgreSQL', () => {
  let apns: ApnsStandin;
  let db: SQL;
  let dir: string;
  const servers: SpawnedServer[] = [];
  let spawnOne: () => Promise<SpawnedServer>;

  beforeAll(async () => {
    await sharedPostgres();
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key] });
    dir = mkdtempSync(join(tmpdir(), 'islet-cluster-'));
    writeFileSync(join(dir, 'apns.p8'), key.key);
    writeFileSync(join(dir, 'standin-ca.pem'), apns.ca);
    const { url } = await testDatabase();
    db = new SQL(url, { max: 2 });
    const config =
      `[security]\nallow_private_endpoints = true\nmaster_key = "${Buffer.alloc(32, 9).toString('base64')}"\n` +
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[cluster]\nlease_seconds = ${LEASE_SECONDS}\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SERVICE_KEY}"\n[apps.apns]\nbundle_id = "com.example.cluster"\nteam_id = "${key.teamId}"\n` +
      `key_id = "${key.keyId}"\nkey_file = "${join(dir, 'apns.p8')}"\nendpoint = "${apns.url}"\nca_file = "${join(dir, 'standin-ca.pem')}"\n`;
    let n = 0;
    // Each in a folder of its own, all on the one database (named by the environment, as an operator would).
    spawnOne = async () => {
      const own = join(dir, `instance-${n++}`);
      mkdirSync(own);
      const server = await spawnServer(own, config, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } });
      servers.push(server);
      return server;
    };
    const first = await spawnOne();
    await spawnOne();
    const release = await fetch(`${first.url}/api/admin/apps/${APP}/releases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ version: 1, status: 'Live', templates: [{ slug: 'alert', title: 'Hello {{ name }}', body: 'Something happened' }] }),
    });
    expect(release.status).toBe(201);
    await seedDevices(db, DEVICES);
  }, POSTGRES_STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) await s.stop();
    await db?.close();
    await apns?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pushes per device token of the round whose title names `round`. */
  const perToken = (round: string) => {
    const counts = new Map<string, number>();
    for (const r of apns.requests) if (r.raw.includes(`Hello ${round}`)) counts.set(r.token, (counts.get(r.token) ?? 0) + 1);
    return counts;
  };
  const outbox = async () =>
    Object.fromEntries(((await db`SELECT status, count(*)::int AS n FROM deliveries GROUP BY status`) as { status: string; n: number }[]).map((r) => [r.status, r.n]));
  async function settled(round: string, timeoutMs: number): Promise<void> {
    await eventually(async () => {
      const counts = await outbox();
      expect({ tokens: perToken(round).size, pending: counts.pending, sending: counts.sending, held: counts.held }).toEqual({ tokens: DEVICES, pending: undefined, sending: undefined, held: undefined });
    }, { timeoutMs, intervalMs: 100 });
  }
  const send = async (server: SpawnedServer, round: string) => {
    const res = await fetch(`${server.url}/api/apps/${APP}/notifications/send`, {
      method: 'POST',
      headers: { 'x-service-key': SERVICE_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ templateSlug: 'alert', variables: { name: round } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { messageCount: number }).messageCount).toBe(DEVICES);
  };

  test('both instances are live, and a fan-out queued through one is sent exactly once in all, by both', async () => {
    expect(((await db`SELECT count(*)::int AS n FROM cluster_instances`) as { n: number }[])[0]!.n).toBe(2);
    await send(servers[0]!, 'one');
    await settled('one', 60_000);
    const counts = perToken('one');
    expect([counts.size, [...counts.values()].filter((n) => n > 1).length]).toEqual([DEVICES, 0]);
    expect(await outbox()).toEqual({ delivered: DEVICES });
    // Each process signs its own provider token: two of them means both instances sent.
    const byInstance = new Map<string, number>();
    for (const r of apns.requests) if (r.raw.includes('Hello one')) byInstance.set(r.headers.authorization!, (byInstance.get(r.headers.authorization!) ?? 0) + 1);
    expect(byInstance.size).toBe(2);
    console.log(JSON.stringify({ scenario: 'fan-out over 2 instances', devices: DEVICES, perInstance: [...byInstance.values()] }));
  }, 90_000);

  test('an instance killed (-9) during a fan-out: the other takes over its claims after the lease, nothing is lost, only its claims arrive twice', async () => {
    const [survivor, victim] = [servers[0]!, servers[1]!];
    await send(survivor, 'two');
    await until('a quarter of the devices have round two', () => perToken('two').size >= DEVICES / 4, { timeoutMs: 60_000 });
    victim.proc.kill('SIGKILL');
    await victim.proc.exited;
    const killedAt = Date.now();
    const victimId = ((await db`SELECT id FROM cluster_instances WHERE pid = ${victim.proc.pid}`) as { id: string }[])[0]!.id;
    // What the dead instance held: the only deliveries it may have sent without recording.
    const held = new Set(
      ((await db`SELECT t.value FROM deliveries d JOIN tokens t ON t.id = d.token_id WHERE d.claimed_by = ${victimId} AND d.status = 'sending'`) as { value: string }[]).map(
        (r) => r.value,
      ),
    );
    await settled('two', 60_000);
    const settledSeconds = (Date.now() - killedAt) / 1000;
    const counts = perToken('two');
    const twice = [...counts].filter(([, n]) => n > 1).map(([token]) => token);
    const tookOver = survivor
      .output()
      .split('\n')
      .find((l) => l.includes('took over the work of instances whose lease ran out') && l.includes(victimId));
    console.log(
      JSON.stringify({
        scenario: 'kill -9 of one of 2 instances',
        devices: DEVICES,
        leaseSeconds: LEASE_SECONDS,
        heldByKilled: held.size,
        duplicates: twice.length,
        takeoverSeconds: tookOver ? (Date.parse(JSON.parse(tookOver).time) - killedAt) / 1000 : null,
        settledSeconds,
      }),
    );
    expect(tookOver).toBeDefined();
    expect(held.size).toBeGreaterThan(0);
    expect(counts.size).toBe(DEVICES);
    expect(twice.filter((token) => !held.has(token))).toEqual([]);
    expect(await outbox()).toEqual({ delivered: 2 * DEVICES });
    expect(((await db`SELECT id FROM cluster_instances`) as { id: string }[]).map((r) => r.id)).not.toContain(victimId);
  }, 90_000);

  test('an instance stopped (SIGTERM) exits 0 and leaves the registry at once, not at the end of its lease', async () => {
    const survivor = servers[0]!;
    const pid = survivor.proc.pid;
    expect(((await db`SELECT count(*)::int AS n FROM cluster_instances WHERE pid = ${pid}`) as { n: number }[])[0]!.n).toBe(1);
    expect(await survivor.stop()).toBe(0);
    expect(((await db`SELECT count(*)::int AS n FROM cluster_instances WHERE pid = ${pid}`) as { n: number }[])[0]!.n).toBe(0);
  }, 30_000);
});

/** Devices with one end user and one APNs token each, written straight into the database. */
async function seedDevices(db: SQL, n: number): Promise<void> {
  const at = Date.now();
  const tokens = Array.from({ length: n }, () => apnsToken());
  await db.begin(async (tx) => {
    await tx`INSERT INTO end_users (app_id, id, created_at, last_seen_at) SELECT ${APP}, 'user-' || i, ${at}, ${at} FROM generate_series(0, ${n - 1}) i`;
    await tx`INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at)
             SELECT 'dev_' || (o - 1), ${APP}, 'user-' || (o - 1), 'ios', t, 'production', ${at}, ${at} FROM unnest(${tokens}::text[]) WITH ORDINALITY AS x(t, o)`;
    await tx`INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at)
             SELECT ${APP}, 'apns_device', t, 'dev_' || (o - 1), 'production', 'active', ${at}, ${at} FROM unnest(${tokens}::text[]) WITH ORDINALITY AS x(t, o)`;
  });
}
