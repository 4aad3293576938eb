/**
 * What every chaos scenario needs: a database seeded with iOS devices (one end user each) whose app
 * sends to an APNs stand-in in its own process, a real server process on a copy of it, the API
 * calls of a fan-out, and the outbox's counts read from the database file.
 */
import { Database } from 'bun:sqlite';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { apnsToken } from '../../src/test-support/apns-standin';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { spawnServer, type SpawnedServer } from '../../src/test-support/spawn-server';
import { startStandinProcess, type StandinProcess } from '../bench/standin-process';

/** The counts every scenario reports. */
export interface Counts {
  /** Pushes the API accepted (queued deliveries, or acknowledged writes). */
  accepted: number;
  /** Distinct device tokens the stand-in answered 200 to (or acknowledged writes found afterwards). */
  delivered: number;
  /** Accepted and neither delivered nor failed. */
  lost: number;
  /** Deliveries that ended `failed` (or writes refused). */
  failed: number;
  /** Pushes a device token received more than once. */
  duplicates: number;
}

/** One JSON line per scenario. */
export interface ScenarioResult extends Counts {
  scenario: string;
  /** The scenario's drain time, as it defines it. */
  drainSeconds: number;
  [extra: string]: unknown;
}

export const APP = 'chaos';
export const SERVICE_KEY = 'sk_chaos_fleet';
export const ADMIN = 'chaos-admin';
const BUNDLE_ID = 'com.example.chaos';
const TEMPLATE = { slug: 'alert', title: 'Hello {{ name }}', body: 'Something happened' };

/** A seeded database to copy from, and the stand-in the app sends to. */
export interface Fleet {
  devices: number;
  standin: StandinProcess;
  /** A fresh server directory with a copy of the seeded database and its config. */
  prepare(): { dir: string; dbPath: string; config: string };
  /** `env`: e.g. ISLET_DATABASE_URL, to serve from PostgreSQL (cluster-fleet.ts). */
  spawn(dir: string, config: string, command?: string[], env?: Record<string, string>): Promise<SpawnedServer>;
  close(): Promise<void>;
}

/**
 * Seeds `devices` iOS devices once; each `prepare` copies the database. A new stand-in process per
 * fleet, so its counts start at zero.
 */
export async function createFleet(devices: number, options: { seed?: number; dbDir?: (dir: string) => string } = {}): Promise<Fleet> {
  const key = apnsKey();
  const standin = await startStandinProcess([key], { seed: options.seed });
  const template = mkdtempSync(join(tmpdir(), 'islet-chaos-'));
  const dirs: string[] = [template];
  writeFileSync(join(template, 'apns.p8'), key.key);
  writeFileSync(join(template, 'standin-ca.pem'), standin.ca);
  const config = (dir: string, dbPath: string) =>
    `[security]\nallow_private_endpoints = true\n[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${dbPath}"\n` +
    `[plans.chaos]\nlive_activities = true\n` +
    `[[apps]]\nid = "${APP}"\nplan = "chaos"\napp_secret = "${SERVICE_KEY}"\n[apps.apns]\nbundle_id = "${BUNDLE_ID}"\nteam_id = "${key.teamId}"\n` +
    `key_id = "${key.keyId}"\nkey_file = "${join(dir, 'apns.p8')}"\nendpoint = "${standin.url}"\nca_file = "${join(dir, 'standin-ca.pem')}"\n`;
  await seed(template, config(template, join(template, 'islet.db')), devices);
  return {
    devices,
    standin,
    prepare() {
      const dir = mkdtempSync(join(tmpdir(), 'islet-chaos-run-'));
      dirs.push(dir);
      cpSync(template, dir, { recursive: true });
      const dbPath = join(options.dbDir?.(dir) ?? dir, 'islet.db');
      return { dir, dbPath, config: config(dir, dbPath) };
    },
    spawn: (dir, toml, command, env) => spawnServer(dir, toml, command, { env, database: 'sqlite' }),
    async close() {
      await standin.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Migrates, applies the config's app with a Live release, and writes the devices straight into the database. */
async function seed(dir: string, toml: string, devices: number): Promise<void> {
  const { ctx } = await bootstrapSqlite(parseConfig(toml, join(dir, 'islet.toml')), { logger: silentLogger });
  const client = ctx.db.sqlite.$client;
  const at = Date.now();
  const user = client.prepare('INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES (?, ?, 0, ?, ?)');
  const device = client.prepare(
    `INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at) VALUES (?, ?, ?, 'ios', ?, 'production', ?, ?)`,
  );
  // The token ledger holds each device's tokens (src/modules/tokens): a device without one gets nothing.
  const token = client.prepare(
    `INSERT INTO tokens (app_id, kind, value, device_id, environment, state, reported_at, created_at) VALUES (?, 'apns_device', ?, ?, 'production', 'active', ?, ?)`,
  );
  client.transaction(() => {
    client.run(`INSERT INTO releases (app_id, version, status, created_at, updated_at) VALUES (?, 1, 'Live', ?, ?)`, [APP, at, at]);
    client.run(`INSERT INTO notification_templates (app_id, version, slug, title, body, placeholders, created_at, updated_at) VALUES (?, 1, ?, ?, ?, '["name"]', ?, ?)`, [
      APP,
      TEMPLATE.slug,
      TEMPLATE.title,
      TEMPLATE.body,
      at,
      at,
    ]);
    for (let i = 0; i < devices; i++) {
      user.run(APP, `user-${i}`, at, at);
      const value = apnsToken();
      device.run(`dev_${i}`, APP, `user-${i}`, value, at, at);
      token.run(APP, value, `dev_${i}`, at, at);
    }
  })();
  client.close();
}

/** One notification send through the public API; `targetUsers` omitted = every device. */
export async function send(server: SpawnedServer, targetUsers?: string[]): Promise<number> {
  const res = await fetch(`${server.url}/api/apps/${APP}/notifications/send`, {
    method: 'POST',
    headers: { 'x-service-key': SERVICE_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ templateSlug: TEMPLATE.slug, variables: { name: 'Ada' }, ...(targetUsers ? { targetUsers } : {}) }),
  });
  const body = (await res.json()) as { messageCount?: number };
  if (res.status !== 200) throw new Error(`send answered ${res.status}: ${JSON.stringify(body)}`);
  return body.messageCount ?? 0;
}

/** The outbox's deliveries by status, read from the file (WAL lets a reader in beside the server). */
export function outboxCounts(dbPath: string): Record<string, number> {
  const db = new Database(dbPath, { readonly: true });
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    const counts: Record<string, number> = {};
    for (const row of db.query<{ status: string; n: number }, []>('SELECT status, count(*) AS n FROM deliveries GROUP BY status').all()) counts[row.status] = row.n;
    return counts;
  } finally {
    db.close();
  }
}

/** Waits until nothing is pending, held or sending any more (checked every 250 ms). */
export async function outboxSettled(dbPath: string, timeoutMs: number): Promise<Record<string, number>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const counts = outboxCounts(dbPath);
    if (!counts.pending && !counts.held && !counts.sending) return counts;
    if (performance.now() > deadline) throw new Error(`the outbox did not settle in ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    await Bun.sleep(250);
  }
}

/** The counts of a fan-out scenario once settled: delivered and duplicates from the stand-in, failed from the outbox. */
export async function fanoutResult(fleet: Fleet, dbPath: string, accepted: number, timeoutMs: number): Promise<Counts & { outbox: Record<string, number> }> {
  const counts = await outboxSettled(dbPath, timeoutMs);
  const failed = counts.failed ?? 0;
  // The stand-in reports every 20 ms: let its last report arrive.
  await fleet.standin.waitForDistinct(accepted - failed, 10_000).catch(() => 0);
  await Bun.sleep(100);
  const delivered = fleet.standin.distinct();
  return { accepted, delivered, failed, lost: accepted - delivered - failed, duplicates: fleet.standin.accepted() - delivered, outbox: counts };
}

export const now = () => performance.timeOrigin + performance.now();
export const seconds = (ms: number) => Math.round(ms / 100) / 10;
