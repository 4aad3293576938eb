import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../test-support/eventually';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

interface Listed {
  id: string;
  host: string;
  version: string;
  startedAt: string;
  lastSeen: string;
  leader: boolean;
}

// One master key for the installation: each instance runs in a folder of its own.
const CONFIG =
  `[security]\nmaster_key = "${Buffer.alloc(32, 7).toString('base64')}"\n` +
  `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "adm"\n[scheduler]\ntick_seconds = 1\n`;
/** Served processes on a busy machine: up to 30 s, asking every 100 ms. */
const WAIT = { timeoutMs: 30_000, intervalMs: 100 };

const listed = async (server: SpawnedServer) => {
  const res = await fetch(`${server.url}/api/admin/instances`, { headers: { authorization: 'Bearer adm' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { instances: Listed[] }).instances;
};

const scrape = async (server: SpawnedServer) => (await fetch(`${server.url}/metrics`)).text();

/** Runs of one scheduler job on an instance, by its /metrics. */
const runsOf = (text: string, job: string) =>
  [...text.matchAll(new RegExp(`^islet_scheduler_job_runs_total\\{job="${job}",outcome="ok"[^}]*\\} (\\d+)`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);

describe('scheduler leadership across served processes on one PostgreSQL', () => {
  beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);
  const dirs: string[] = [];
  const servers: SpawnedServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function two(): Promise<[SpawnedServer, SpawnedServer]> {
    const { url } = await testDatabase();
    const start = async () => {
      const dir = mkdtempSync(join(tmpdir(), 'islet-leader-'));
      dirs.push(dir);
      const server = await spawnServer(dir, CONFIG, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } });
      servers.push(server);
      return server;
    };
    const first = await start();
    // The first leads before the second starts, so which one leads is known.
    await eventually(async () => expect((await listed(first)).some((i) => i.leader)).toBe(true), WAIT);
    return [first, await start()];
  }

  test('two instances: both listed by each, exactly one leader, and each labels its metrics with its own id', async () => {
    const [a, b] = await two();
    const both = await eventually(async () => {
      const list = await listed(b);
      expect(list).toHaveLength(2);
      return list;
    }, WAIT);
    expect(both.filter((i) => i.leader)).toHaveLength(1);
    expect(new Set(both.map((i) => i.id)).size).toBe(2);
    // Newest first: b started last.
    expect(Date.parse(both[0]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(both[1]!.startedAt));
    expect((await listed(a)).map((i) => i.id).sort()).toEqual(both.map((i) => i.id).sort());
    const [textA, textB] = await Promise.all([scrape(a), scrape(b)]);
    const idOf = (text: string) => text.match(/islet_scheduler_leader\{islet_instance="([^"]+)"\} ([01])/)!.slice(1);
    const [idA, leaderA] = idOf(textA);
    const [idB, leaderB] = idOf(textB);
    expect([idA, idB].sort()).toEqual(both.map((i) => i.id).sort());
    expect([leaderA, leaderB]).toEqual(['1', '0']);
    expect(both.find((i) => i.leader)!.id).toBe(idA!);
    // Only the leader runs the jobs.
    expect(runsOf(textB, 'quota')).toBe(0);
  }, 60_000);

  test('kill -9 of the leader: the other leads and runs its first scheduler job (the takeover time is printed)', async () => {
    const [a, b] = await two();
    await eventually(async () => expect(await listed(b)).toHaveLength(2), WAIT);
    expect(runsOf(await scrape(b), 'quota')).toBe(0);
    const killedAt = Date.now();
    a.proc.kill('SIGKILL');
    await a.proc.exited;
    await eventually(async () => expect(runsOf(await scrape(b), 'quota')).toBeGreaterThan(0), WAIT);
    console.log(`leader kill -9 → first quota run on the other instance: ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
    expect(b.output()).toContain('"became scheduler leader"');
    // Once a's lease lapses, b lists itself alone, as the leader.
    const alone = await eventually(async () => {
      const list = await listed(b);
      expect(list.map((i) => i.leader)).toEqual([true]);
      return list;
    }, WAIT);
    expect(alone[0]!.id).toBe((await scrape(b)).match(/islet_instance="([^"]+)"/)![1]!);
  }, 90_000);
});
