/**
 * What the cluster scenarios need: the seeded fleet of fleet.ts moved once into a real PostgreSQL,
 * a fresh copy of that database per run (`CREATE DATABASE … TEMPLATE`, seconds even at 100,000
 * devices), several served processes on it (one `[database] url`, distinct ports), the outbox's
 * counts read with SQL, and kill -9 of one instance with what it had claimed at that moment.
 */
import { SQL } from 'bun';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { parseConfig } from '../../src/config/config.load';
import { migrateToPostgres } from '../../src/db/migrate-to-postgres';
import { startPostgres, type PostgresServer } from '../../src/test-support/postgres';
import type { SpawnedServer } from '../../src/test-support/spawn-server';
import { ADMIN, APP, createFleet, now, seconds, SERVICE_KEY, type Counts, type Fleet } from './fleet';

export interface ClusterOptions {
  instances: number;
  /** `[cluster] lease_seconds`; absent: the product's default. */
  leaseS?: number;
}

/** One PostgreSQL, the stand-in and the seeded database every run copies. */
export interface ClusterFleet {
  pg: PostgresServer;
  fleet: Fleet;
  /** The lease the instances run with (seconds), as configured or the product's default. */
  leaseS: number | undefined;
  /** A fresh copy of the seeded database and `instances` servers on it, all listening. */
  run(): Promise<ClusterRun>;
  close(): Promise<void>;
}

export interface ClusterRun {
  /** The servers by slot; undefined while a slot is killed. */
  servers: (SpawnedServer | undefined)[];
  /** The harness's own connection to the run's database (counts and checks). */
  sql: SQL;
  /** (Re)starts the server of a slot; `extraToml` is added to its configuration. */
  start(slot: number, extraToml?: string): Promise<SpawnedServer>;
  /** kill -9 of a slot's server; resolves with what it had claimed (deliveries in `sending` under its id) right after it died. */
  kill(slot: number): Promise<{ pid: number; claimed: number }>;
  /** Deliveries still `sending` under the instance of `pid` (0 once another instance took them over). */
  claimedBy(pid: number): Promise<number>;
  /** The next live server, in turn (the round-robin client). */
  next(): SpawnedServer;
  /** Outbox deliveries by status. */
  outbox(): Promise<Record<string, number>>;
  /** Stops every server still running. */
  stop(): Promise<void>;
}

/** The product's defaults of keys that came with several instances (absent in a build without them). */
const defaults = () => parseConfig('', 'defaults') as unknown as { cluster?: { lease_seconds?: number }; delivery?: { worker?: boolean } };

/** The default of `[cluster] lease_seconds`. */
const defaultLeaseS = () => defaults().cluster?.lease_seconds;

/** Whether `[delivery] worker = false` (an instance that queues but sends nothing) exists. */
export const apiOnlyInstances = () => defaults().delivery?.worker !== undefined;

/**
 * Seeds `devices` devices (fleet.ts) and moves them into a database `seed` of a new PostgreSQL
 * (test settings: no fsync; a fast shutdown still keeps every commit).
 */
export async function createClusterFleet(devices: number, options: ClusterOptions): Promise<ClusterFleet> {
  const fleet = await createFleet(devices);
  const pg = await startPostgres({ settings: { max_connections: '300' } });
  try {
    const admin = new SQL(pg.url('postgres'), { max: 1 });
    await admin.unsafe('CREATE DATABASE seed');
    const seeded = fleet.prepare();
    const startedAt = now();
    await migrateToPostgres(seeded.dbPath, { url: pg.url('seed'), poolSize: 1 });
    console.error(`  ${devices} devices moved into PostgreSQL in ${seconds(now() - startedAt)} s`);
    const runs: ClusterRun[] = [];
    return {
      pg,
      fleet,
      leaseS: options.leaseS ?? defaultLeaseS(),
      async run() {
        const name = `run_${randomBytes(4).toString('hex')}`;
        await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE seed`);
        const run = await startRun(fleet, pg.url(name), options);
        runs.push(run);
        return run;
      },
      async close() {
        for (const run of runs) await run.stop();
        await admin.close();
        await pg.stop();
        await fleet.close();
      },
    };
  } catch (e) {
    await pg.stop();
    await fleet.close();
    throw e;
  }
}

async function startRun(fleet: Fleet, url: string, options: ClusterOptions): Promise<ClusterRun> {
  // One folder for all: the same configuration and the installation's master key file (islet.key).
  const { dir, config } = fleet.prepare();
  const toml = options.leaseS === undefined ? config : `${config}[cluster]\nlease_seconds = ${options.leaseS}\n`;
  const sql = new SQL(url, { max: 2 });
  const servers: (SpawnedServer | undefined)[] = Array.from({ length: options.instances }, () => undefined);
  let turn = 0;
  const query = async <T>(run: () => Promise<T>): Promise<T> => {
    // The harness's reads outlive a PostgreSQL restart: its pool connects again, so try again.
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (e) {
        if (attempt >= 100) throw e;
        await Bun.sleep(100);
      }
    }
  };
  const claimedBy = (pid: number) =>
    query(async () => {
      // Before claims carry an instance (claimed_by), a lone instance's claims are all of them.
      const [row] = await sql`SELECT count(*)::int AS n FROM deliveries WHERE status = 'sending'
        AND (claimed_by IS NULL OR claimed_by IN (SELECT id FROM cluster_instances WHERE pid = ${pid}))`;
      return row.n as number;
    });
  const run: ClusterRun = {
    servers,
    sql,
    async start(slot, extraToml = '') {
      const server = await fleet.spawn(dir, toml + extraToml, undefined, { ISLET_DATABASE_URL: url });
      servers[slot] = server;
      return server;
    },
    async kill(slot) {
      const server = servers[slot];
      if (!server) throw new Error(`slot ${slot} is not running`);
      servers[slot] = undefined;
      server.proc.kill('SIGKILL');
      await server.proc.exited;
      return { pid: server.proc.pid, claimed: await claimedBy(server.proc.pid) };
    },
    claimedBy,
    next() {
      for (let i = 0; i < servers.length; i++) {
        const server = servers[turn++ % servers.length];
        if (server) return server;
      }
      throw new Error('no instance is running');
    },
    outbox: () =>
      query(async () => {
        const counts: Record<string, number> = {};
        for (const row of await sql`SELECT status, count(*)::int AS n FROM deliveries GROUP BY status`) counts[row.status] = row.n;
        return counts;
      }),
    async stop() {
      await Promise.all(servers.map((s) => (s && existsSync(`/proc/${s.proc.pid}`) ? s.stop() : undefined)));
      servers.fill(undefined);
      await sql.close();
    },
  };
  // One after the other: the first migrates (under its advisory lock) while the others would wait.
  for (let slot = 0; slot < options.instances; slot++) await run.start(slot);
  return run;
}

/** Deliveries left in flight: by status and the instance whose claim they are under, and whether it is live. */
export interface StuckDeliveries {
  status: string;
  claimedBy: string | null;
  instanceLive: boolean;
  n: number;
}

/**
 * Waits until nothing is pending, held or sending (checked every 250 ms). When the counts stay the
 * same for `stallMs` (beyond any lease, backoff or probe), stops waiting and says what is stuck
 * and under whose claim, instead of waiting for the timeout.
 */
export async function clusterSettled(run: ClusterRun, timeoutMs: number, stallMs = 90_000): Promise<{ outbox: Record<string, number>; stuck?: StuckDeliveries[] }> {
  const deadline = performance.now() + timeoutMs;
  let shownAt = performance.now();
  let last = '';
  let changedAt = performance.now();
  for (;;) {
    const counts = await run.outbox();
    if (!counts.pending && !counts.held && !counts.sending) return { outbox: counts };
    if (JSON.stringify(counts) !== last) [last, changedAt] = [JSON.stringify(counts), performance.now()];
    if (performance.now() - changedAt > stallMs) return { outbox: counts, stuck: await stuckDeliveries(run) };
    if (performance.now() - shownAt > 10_000) {
      shownAt = performance.now();
      console.error(`  outbox ${JSON.stringify(counts)}`);
    }
    if (performance.now() > deadline) throw new Error(`the outbox did not settle in ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    await Bun.sleep(250);
  }
}

async function stuckDeliveries(run: ClusterRun): Promise<StuckDeliveries[]> {
  const rows = await run.sql`SELECT d.status, d.claimed_by, count(*)::int AS n,
      bool_or(i.lease_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS live
    FROM deliveries d LEFT JOIN cluster_instances i ON i.id = d.claimed_by
    WHERE d.status IN ('pending', 'held', 'sending') GROUP BY d.status, d.claimed_by`;
  return rows.map((r: { status: string; claimed_by: string | null; n: number; live: boolean | null }) => ({
    status: r.status,
    claimedBy: r.claimed_by,
    instanceLive: r.live === true,
    n: r.n,
  }));
}

/** A fan-out's counts once settled: delivered and duplicates from the stand-in (reset before the send), failed from the outbox. */
export async function clusterResult(
  fleet: Fleet,
  run: ClusterRun,
  accepted: number,
  timeoutMs: number,
): Promise<Counts & { outbox: Record<string, number>; stuck?: StuckDeliveries[]; lastAt: number }> {
  const { outbox, stuck } = await clusterSettled(run, timeoutMs);
  const failed = outbox.failed ?? 0;
  // The stand-in reports every 20 ms: let its last report arrive.
  const lastAt = await fleet.standin.waitForDistinct(accepted - failed, 10_000).catch(() => 0);
  await Bun.sleep(100);
  const delivered = fleet.standin.distinct();
  return { accepted, delivered, failed, lost: accepted - delivered - failed, duplicates: fleet.standin.accepted() - delivered, outbox, ...(stuck ? { stuck } : {}), lastAt };
}

/**
 * Clients writing through every live instance in turn (device registrations, which queue no
 * pushes) until `stop`; a write that a killed or stopped instance could not answer is not owed.
 * `check` then reads every 2xx device back from the database.
 */
export function roundRobinWriter(run: ClusterRun, clients = 4) {
  const acknowledged: string[] = [];
  const statuses: Record<string, number> = {};
  let stopped = false;
  let n = 0;
  const client = async () => {
    while (!stopped) {
      const i = n++;
      let status = 'refused';
      try {
        const res = await fetch(`${run.next().url}/api/apps/${APP}/devices`, {
          method: 'POST',
          headers: { 'x-service-key': SERVICE_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ endUserId: `writer-${i}`, platform: 'android', token: `writer-token-${i}` }),
        });
        status = String(res.status);
        if (res.ok) acknowledged.push(((await res.json()) as { device: { id: string } }).device.id);
        else await res.body?.cancel();
      } catch {
        // The instance died or PostgreSQL is gone under it: not acknowledged, so not owed.
        await Bun.sleep(50);
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const running = Array.from({ length: clients }, client);
  return {
    statuses,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
    /** Acknowledged writes and how many of them the database does not hold. */
    async check(): Promise<{ acknowledged: number; missing: number }> {
      const ids = new Set<string>();
      // One text parameter, not thousands of them.
      for (const row of await run.sql`SELECT id FROM devices WHERE id = ANY(string_to_array(${acknowledged.join(',')}, ','))`) ids.add(row.id);
      return { acknowledged: acknowledged.length, missing: acknowledged.filter((id) => !ids.has(id)).length };
    },
  };
}

/** GET of the admin API on one instance. */
export async function adminGet(server: SpawnedServer, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}
