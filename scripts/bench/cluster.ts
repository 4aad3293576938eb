/**
 * Scaling figures of several instances on one PostgreSQL (issue 30): for each instance count,
 * a fresh copy of one seeded database and that many server processes on it, then
 *  - one `notifications/send` to every device (through the first instance; all of them send):
 *    deliveries/s end to end until the stand-in has them all;
 *  - Live Activity updates (PATCH) from 50 clients, spread over the instances in turn.
 * Next to each total: the CPU time each server process used per delivery / per update (from
 * /proc/<pid>/stat), their sum, and PostgreSQL's own (its server processes, same source), so a
 * reader sizes a deployment by per-unit costs (on a small machine the totals cannot grow much).
 * Prints a table on stderr and one JSON line: {"cluster_1_fanout_per_s", "cluster_1_fanout_cpu_us",
 * "cluster_1_fanout_pg_cpu_us", "cluster_1_update_rps", "cluster_1_update_p99_ms", "cluster_1_update_cpu_us",
 * "cluster_1_update_pg_cpu_us", …} (cpu_us: all instances together, per delivery or update).
 *   bun scripts/bench/cluster.ts [--instances 1,2,3] [--devices 100000] [--seconds 10] [--binary dist/islet]
 */
import { SQL } from 'bun';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateToPostgres } from '../../src/db/migrate-to-postgres';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../src/test-support/spawn-server';
import { runLoad } from './load';
import { benchPostgresServer, stopBenchPostgres } from './postgres-target';
import { seed } from './seed';
import { round } from './stats';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '1,2,3' },
    devices: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    binary: { type: 'string' },
  },
});
const COUNTS = values.instances.split(',').map(Number);
const DEVICES = Number(values.devices);
const DURATION_MS = Number(values.seconds) * 1000;
const ACTIVITIES = 200;
const KEY = 'sk_bench_cluster';
const TEMPLATE = { slug: 'welcome', title: 'Hello {{ name }}', body: 'You have {{count}} new messages' };
const TIMEOUT_MS = 30 * 60_000;

const now = () => performance.timeOrigin + performance.now();
/** CPU time (user + system, all threads) of a process so far, in µs; 0 once it is gone. Linux clock ticks are 10 ms. */
function cpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}
/** The PostgreSQL server (postmaster) and its children: backends, WAL writer, checkpointer, … */
function postgresCpuUs(postmaster: number): number {
  let total = cpuUs(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) * 10_000;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** Starts a CPU reading of every server and of PostgreSQL; the function it returns ends it, per unit of work. */
function cpuMeter(servers: SpawnedServer[], postmaster: number) {
  const before = servers.map((s) => cpuUs(s.proc.pid));
  const pgBefore = postgresCpuUs(postmaster);
  return () => {
    const used = servers.map((s, i) => cpuUs(s.proc.pid) - before[i]!);
    const pg = postgresCpuUs(postmaster) - pgBefore;
    return (units: number) => {
      const perInstance = used.map((us) => Math.round(us / units));
      return { perInstance, islet: Math.round(used.reduce((a, b) => a + b, 0) / units), pg: Math.round(pg / units) };
    };
  };
}

const key = apnsKey();
const standin = await startStandinProcess([key]);
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-cluster-'));
const figures: Record<string, number> = {};
const rows: string[] = [];
try {
  const pg = await benchPostgresServer();
  const postmaster = () => Number(readFileSync(join(pg.baseDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const admin = new SQL(pg.url('postgres'), { max: 1 });
  const toml = benchConfig(dir, key, standin, KEY);
  await seed(dir, toml, { fanout: DEVICES, starts: 0 });
  await admin.unsafe('CREATE DATABASE cluster_seed');
  await migrateToPostgres(join(dir, 'islet.db'), { url: pg.url('cluster_seed'), poolSize: 1 });

  for (const n of COUNTS) {
    const name = `cluster_${n}_${Date.now()}`;
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE cluster_seed`);
    const servers: SpawnedServer[] = [];
    try {
      // One after the other: the first migrates while the others would wait for its lock.
      for (let i = 0; i < n; i++) servers.push(await spawnServer(dir, toml, values.binary ? [values.binary] : undefined, { env: { ISLET_DATABASE_URL: pg.url(name) }, database: 'sqlite' }));
      const client = serverClient(() => servers[0]!.url, KEY, 'bench');
      await client.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [TEMPLATE] }, { authorization: 'Bearer bench' });

      const base = standin.accepted();
      const fanoutMeter = cpuMeter(servers, postmaster());
      const sentAt = now();
      const sent = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'welcome', variables: { name: 'Ada', count: '3' } });
      if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} messages, got ${JSON.stringify(sent)}`);
      const fanoutMs = (await standin.waitFor(base + DEVICES, TIMEOUT_MS)) - sentAt;
      const fanout = fanoutMeter()(DEVICES);

      const ids = await startActivities(servers[0]!);
      let updateUsed: ReturnType<ReturnType<typeof cpuMeter>> | undefined;
      const load = await runLoad({
        url: (i) => `${servers[i % n]!.url}/api/apps/fanout/live-activities/${ids[i % ids.length]}`,
        method: 'PATCH',
        headers: { 'x-service-key': KEY, 'content-type': 'application/json' },
        body: (i) => JSON.stringify({ contentState: { progress: String(i % 101), detail: `step ${i}` } }),
        concurrency: 50,
        durationMs: DURATION_MS,
        // Only the measured run (after the warm-up) counts.
        measure: () => {
          const meter = cpuMeter(servers, postmaster());
          return () => void (updateUsed = meter());
        },
      });
      const update = updateUsed!(load.requests);
      if (load.errors > 0) throw new Error(`${load.errors} updates failed`);

      const k = (what: string) => `cluster_${n}_${what}`;
      Object.assign(figures, {
        [k('fanout_per_s')]: Math.round(DEVICES / (fanoutMs / 1000)),
        [k('fanout_cpu_us')]: fanout.islet,
        [k('fanout_pg_cpu_us')]: fanout.pg,
        [k('update_rps')]: round(load.rps),
        [k('update_p99_ms')]: load.p99Ms,
        [k('update_cpu_us')]: update.islet,
        [k('update_pg_cpu_us')]: update.pg,
      });
      rows.push(
        `  ${String(n).padStart(9)} ${String(figures[k('fanout_per_s')]).padStart(12)} ${String(fanout.islet).padStart(7)} [${fanout.perInstance.join(', ')}]`.padEnd(48) +
          ` ${String(fanout.pg).padStart(6)}   ${String(figures[k('update_rps')]).padStart(9)} ${String(load.p99Ms).padStart(7)} ${String(update.islet).padStart(7)} [${update.perInstance.join(', ')}]`.padEnd(40) +
          ` ${String(update.pg).padStart(6)}`,
      );
      console.error(`cluster ${n}: ${JSON.stringify(Object.fromEntries(Object.entries(figures).filter(([f]) => f.startsWith(k('')))))}`);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }
  await admin.close();
  console.error(`\n${navigator.hardwareConcurrency} cores, ${DEVICES} devices, updates over ${ACTIVITIES} activities from 50 clients for ${DURATION_MS / 1000} s; CPU in µs per delivery / per update (Islet: all instances [each])`);
  console.error(`  instances deliveries/s   Islet CPU [each]                  PG CPU   updates/s  p99 ms   Islet CPU [each]               PG CPU`);
  for (const row of rows) console.error(row);
  console.log(JSON.stringify(figures));
} finally {
  await standin.stop();
  await stopBenchPostgres();
  rmSync(dir, { recursive: true, force: true });
}

/** Android devices of their own (no pushes to the stand-in) and one Live Activity on each: the ids to update. */
async function startActivities(server: SpawnedServer): Promise<string[]> {
  const headers = { 'x-service-key': KEY, 'content-type': 'application/json' };
  const users = Array.from({ length: ACTIVITIES }, (_, i) => `updater-${i}`);
  for (let i = 0; i < ACTIVITIES; i += 50)
    await Promise.all(
      users.slice(i, i + 50).map((u) => fetch(`${server.url}/api/apps/fanout/devices`, { method: 'POST', headers, body: JSON.stringify({ endUserId: u, platform: 'android', token: `t-${u}` }) })),
    );
  const res = await fetch(`${server.url}/api/apps/fanout/live-activities`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' }, targetUsers: users }),
  });
  const ids = ((await res.json()) as { activities: { id: string }[] }).activities.map((a) => a.id);
  if (ids.length !== ACTIVITIES) throw new Error(`expected ${ACTIVITIES} activities, got ${ids.length}`);
  return ids;
}
