import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { migratePostgres } from './postgres/migrate';
import { SecretBox } from '../lib/secrets';
import { apnsToken } from '../test-support/apns-standin';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../test-support/postgres';
import { serverClient } from '../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../test-support/spawn-server';
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver';
import { until } from '../test-support/eventually';

const MAIN = join(import.meta.dir, '..', 'main.ts');
const SECRET = 'sk_move_e2e';
const ADMIN = 'move-admin';
const dir = mkdtempSync(join(tmpdir(), 'islet-pgmove-'));
const dbPath = join(dir, 'data', 'islet.db');
const configPath = join(dir, 'islet.toml');
let server: SpawnedServer | undefined;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  await sharedPostgres();
}, POSTGRES_STARTUP_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** `islet <args> --config islet.toml`, as a user runs it; the servers keep running meanwhile. */
async function islet(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, '--config', configPath], { cwd: dir, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ISLET_CONFIG: '', ...env } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

/** Fills the SQLite database through a served process: the demo, then an app used through the public and admin APIs. */
const SERVED = () =>
  `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${dbPath}"\n` +
  `[plans.pro]\nlive_activities = true\n[[apps]]\nid = "shop"\nplan = "pro"\napp_secret = "${SECRET}"\n`;

/** What the public and admin APIs answer about the populated database (the same before and after the move). */
async function answers(): Promise<Record<string, unknown>> {
  const { call, admin } = serverClient(() => server!.url, SECRET, ADMIN);
  const read = async (answer: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await answer;
    return { status, body };
  };
  // Every start applies the configured apps again (their updatedAt moves on either database).
  const apps = await read(admin('GET', '/api/admin/apps'));
  for (const app of (apps.body as { apps: { source: string; updatedAt?: string }[] }).apps) if (app.source === 'config') delete app.updatedAt;
  return {
    apps,
    devices: await read(admin('GET', '/api/admin/apps/shop/devices?limit=100')),
    endUsers: await read(admin('GET', '/api/admin/apps/shop/end-users?limit=100')),
    activities: await read(call('GET', '/api/apps/shop/live-activities')),
    releases: await read(admin('GET', '/api/admin/apps/shop/releases')),
    webhooks: await read(admin('GET', '/api/admin/apps/shop/webhooks')),
    deliveries: await read(admin('GET', '/api/admin/apps/shop/deliveries?limit=100')),
  };
}

async function populate(): Promise<Record<string, unknown>> {
  server = await spawnServer(dir, SERVED());
  const { call, admin } = serverClient(() => server!.url, SECRET, ADMIN);
  expect((await islet(['demo'])).code).toBe(0);
  const hook = await admin('POST', '/api/admin/apps/shop/webhooks', { url: receiver.url, description: 'orders' });
  expect(hook.status).toBe(201);
  receiver.secret = hook.body.secret;
  // A localized template (notification_templates.localizations; its send writes notification_message_variants).
  const release = { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi {{name}}', body: 'Your order {{order}}', localizations: { de: { title: 'Hallo {{name}}' } } }] };
  expect((await admin('POST', '/api/admin/apps/shop/releases', release)).status).toBe(201);
  const deviceIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    const ios = i % 2 === 0;
    const place = i < 4 ? { locale: 'de-AT', timeZone: 'Europe/Vienna' } : {};
    const device = { endUserId: `u${i}`, platform: ios ? 'ios' : 'android', token: ios ? apnsToken(`d${i}`) : `fcm-${i}`, ...(ios ? { pushToStartToken: apnsToken(`p2s${i}`) } : {}), tester: i < 3, ...place };
    const registered = await call('POST', '/api/apps/shop/devices', device);
    expect(registered.status).toBe(200);
    deviceIds.push(registered.body.device.id);
  }
  // Tags (end_user_tags).
  expect((await call('PUT', '/api/apps/shop/users/u0', { tags: { plan: 'gold', country: 'AT' } })).status).toBe(200);
  const started = await call('POST', '/api/apps/shop/live-activities', { templateSlug: 'metric-live', targetUsers: ['u0', 'u1', 'u2', 'u3'], attributes: { label: 'Score' }, contentState: { value: '1' } });
  expect(started.status).toBe(200);
  const [first, second] = started.body.activities as { id: string }[];
  expect((await call('PUT', `/api/apps/shop/live-activities/${first!.id}/push-token`, { token: apnsToken('activity-u0') })).status).toBe(200);
  expect((await call('PATCH', `/api/apps/shop/live-activities/${first!.id}`, { contentState: { value: '2' } })).status).toBe(200);
  expect((await call('DELETE', `/api/apps/shop/live-activities/${second!.id}`)).status).toBe(200);
  // A broadcast and its outbox steps (broadcasts, broadcast_ops).
  const broadcast = await call('POST', '/api/apps/shop/broadcasts', { templateSlug: 'metric-live', attributes: { label: 'Final' }, contentState: { value: '0' } });
  expect(broadcast.status).toBe(201);
  expect((await call('PATCH', `/api/apps/shop/broadcasts/${broadcast.body.id}`, { contentState: { value: '1' } })).status).toBe(200);
  // A frequency cap, so the send counts each end user's notifications (frequency_cap_windows).
  expect((await admin('PATCH', '/api/admin/apps/shop', { frequencyCap: { count: 100, perHours: 24 } })).status).toBe(200);
  const send = await fetch(`${server.url}/api/apps/shop/notifications/send`, {
    method: 'POST',
    headers: { 'x-service-key': SECRET, 'content-type': 'application/json', 'idempotency-key': 'order-42' },
    // Throttled (throttled_sends), a millisecond apart.
    body: JSON.stringify({ templateSlug: 'hi', variables: { name: 'Ada', order: '42' }, throttlePerMinute: 60_000 }),
  });
  expect(send.status).toBe(200);
  // u0 received it (notification_receipts) and opened it (notification_opens).
  const { messageId } = (await send.json()) as { messageId: string };
  expect((await call('POST', `/api/apps/shop/notifications/${messageId}/received`, { endUserId: 'u0', deviceId: deviceIds[0] })).body).toMatchObject({ counted: true });
  expect((await call('POST', `/api/apps/shop/notifications/${messageId}/opened`, { endUserId: 'u0', deviceId: deviceIds[0] })).body).toMatchObject({ counted: true });
  // A send scheduled a day ahead (scheduled_sends): it waits, and moves with the rest.
  const later = await call('POST', '/api/apps/shop/notifications/send', { templateSlug: 'hi', variables: { name: 'Bo' }, sendAt: new Date(Date.now() + 86_400_000).toISOString() });
  expect(later.status).toBe(200);
  // A Live Activity start scheduled a day ahead (scheduled_starts).
  const scheduledStart = { templateSlug: 'metric-live', targetUsers: ['u4'], attributes: { label: 'Kick-off' }, contentState: { value: '0' }, startAt: new Date(Date.now() + 86_400_000).toISOString() };
  expect((await call('POST', '/api/apps/shop/live-activities', scheduledStart)).body.activities[0].state).toBe('Scheduled');
  // Everything queued goes out (the simulator), and the webhook events arrive.
  const client = new Database(dbPath, { readonly: true });
  try {
    await until('nothing is left to send', async () => client.query<{ n: number }, []>(`SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'sending')`).get()!.n === 0, { timeoutMs: 15_000, intervalMs: 100 });
    await until('the receiver has the three events', async () => receiver.events.length >= 3, { timeoutMs: 15_000, intervalMs: 100 });
  } finally {
    client.close();
  }
  expect(receiver.events.length).toBeGreaterThanOrEqual(3);
  return answers();
}

/** A row as text, its columns in name order (a column added by a later SQLite migration sits last there). */
const canonical = (row: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));

/** Each table's rows as PostgreSQL holds them, bigint read back as numbers, sorted. */
async function postgresRows(pg: SQL, table: string): Promise<unknown[]> {
  const types: { name: string; type: string }[] = await pg`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table}`;
  const bigints = types.filter((t) => t.type === 'bigint').map((t) => t.name);
  const rows: Record<string, unknown>[] = await pg`SELECT * FROM ${pg(table)}`;
  // `claimed_by` (several instances, PostgreSQL only) has no SQLite twin: a moved row has none.
  for (const r of rows) {
    expect(r.claimed_by ?? null).toBeNull();
    delete r.claimed_by;
  }
  return rows.map((r) => ({ ...r, ...Object.fromEntries(bigints.map((c) => [c, r[c] === null ? null : Number(r[c])])) })).map(canonical).sort();
}

/** Each table's rows as SQLite holds them, with the boolean columns of PostgreSQL as booleans, sorted. */
function sqliteRows(client: Database, table: string, booleans: string[]): unknown[] {
  const rows = client.query<Record<string, unknown>, []>(`SELECT * FROM "${table}"`).all();
  return rows.map((r) => ({ ...r, ...Object.fromEntries(booleans.filter((c) => c in r).map((c) => [c, r[c] === null ? null : r[c] === 1])) })).map(canonical).sort();
}

describe('islet migrate-to-postgres (real server processes, a real PostgreSQL)', () => {
  test('copies a populated database into PostgreSQL: all or nothing; every table, every row equal after type mapping, secrets open with the same key, ids continue; a second run refuses', async () => {
    const before = await populate();
    const { url, server: pgServer } = await testDatabase();

    const whileServing = await islet(['migrate-to-postgres', '--to', url]);
    expect(whileServing.code).toBe(1);
    expect(whileServing.err).toContain(`an Islet server is running on ${dbPath}: stop it first`);
    expect(await server!.stop()).toBe(0);
    server = undefined;

    // A target that fails late in the copy (a trigger refuses webhook attempts) keeps nothing.
    const trap = await testDatabase();
    await migratePostgres({ url: trap.url, poolSize: 1 });
    const trapped = new SQL(trap.url, { max: 1 });
    try {
      await trapped.unsafe(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk quota of the test'; END $$;
        CREATE TRIGGER refuse BEFORE INSERT ON webhook_attempts FOR EACH STATEMENT EXECUTE FUNCTION refuse()`);
      const failed = await islet(['migrate-to-postgres', '--to', trap.url]);
      expect(failed.code).toBe(1);
      expect(failed.err).toContain('disk quota of the test');
      const [kept] = await trapped`SELECT (SELECT count(*) FROM apps) + (SELECT count(*) FROM devices) + (SELECT count(*) FROM deliveries) + (SELECT count(*) FROM webhook_events) AS n`;
      expect(Number(kept.n)).toBe(0);
    } finally {
      await trapped.close();
    }

    const moved = await islet(['migrate-to-postgres', '--to', url]);
    expect(moved.err).toBe('');
    expect(moved.code).toBe(0);
    expect(moved.out + moved.err).not.toContain(pgServer.password);

    const sqlite = new Database(dbPath, { readonly: true });
    const pg = new SQL(url, { max: 1 });
    try {
      const tables = sqlite
        .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name`)
        .all()
        .map((t) => t.name);
      expect(tables.length).toBeGreaterThan(15);
      const booleans: string[] = (await pg`SELECT DISTINCT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'boolean'`).map(
        (r: { name: string }) => r.name,
      );
      const empty: string[] = [];
      for (const table of tables) {
        const n = sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${table}"`).get()!.n;
        if (n === 0) empty.push(table);
        // Printed: one line per table with its row count.
        expect(moved.out).toMatch(new RegExp(`^  ${table} +${n} rows?$`, 'm'));
        expect({ table, rows: await postgresRows(pg, table) }).toEqual({ table, rows: sqliteRows(sqlite, table, booleans) });
      }
      // Analyzed once copied: the planner knows each table's size (reltuples is -1 on a table never analyzed).
      const planned: { relname: string; reltuples: number }[] = await pg`SELECT relname, reltuples::int AS reltuples FROM pg_class WHERE relname IN ('apps', 'devices', 'deliveries') ORDER BY relname`;
      expect(planned).toEqual(['apps', 'deliveries', 'devices'].map((t) => ({ relname: t, reltuples: sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${t}"`).get()!.n })));
      // Only what this scenario cannot make (attempts answered with a retry) stays empty: the comparison above saw real rows.
      expect(empty).toEqual(['delivery_attempts']);
      expect(moved.out).toMatch(new RegExp(`^${tables.length} tables, \\d+ rows in \\d+\\.\\d s; the row count of every table verified$`, 'm'));

      // Secrets moved still sealed: the key file beside the SQLite database opens them from PostgreSQL.
      const key = Buffer.from(readFileSync(join(dir, 'data', 'islet.key'), 'utf8').trim(), 'base64');
      const [shop] = await pg`SELECT app_secret_sealed AS sealed FROM apps WHERE id = 'shop'`;
      expect(shop.sealed).not.toContain(SECRET);
      expect(new SecretBox(key).open(shop.sealed, 'apps.app_secret:shop')).toBe(SECRET);
      expect(moved.out).toContain(`every instance serving from PostgreSQL needs the same master key: set [security] master_key (or ISLET_SECURITY_MASTER_KEY) to the content of ${join(dir, 'data', 'islet.key')}.`);

      // Identities continue after the copied ids.
      const lastAudit = sqlite.query<{ id: number }, []>('SELECT max(id) AS id FROM audit_log').get()!.id;
      const [next] = await pg`INSERT INTO audit_log (at, actor, address, action, target, summary) VALUES (1, 'cli', 'local', 'test', 't', '{}') RETURNING id`;
      expect(Number(next.id)).toBe(lastAudit + 1);
    } finally {
      sqlite.close();
      await pg.close();
    }

    const again = await islet(['migrate-to-postgres', '--to', url]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/the target already holds Islet rows \(table apps\): migrate-to-postgres copies into an empty database only/);

    // The same configuration served from PostgreSQL answers as the SQLite file did.
    server = await spawnServer(dir, SERVED(), undefined, { env: { ISLET_DATABASE_URL: url } });
    expect(await answers()).toEqual(before);
  }, 120_000);
});
