import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../../test-support/fcm-standin';
import { sharedPostgres, testDatabase } from '../../../test-support/postgres';
import { serverClient } from '../../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../../test-support/spawn-server';

/**
 * A throttled send with two server processes on one PostgreSQL: both claim its deliveries, and
 * the rate holds for the send as a whole (the schedule is in the rows); a cancel through the other
 * instance stops the rest everywhere; one instance killed (-9), the other goes on at the rate.
 */
describe('throttled sends on several instances (PostgreSQL)', () => {
  const APP = 'spread';
  const SECRET = 'sk_throttle_cluster';
  let fcm: FcmStandin;
  let dir: string;
  const servers: SpawnedServer[] = [];
  const arrivals = new Map<string, number[]>();

  beforeAll(async () => {
    await sharedPostgres();
    fcm = await startFcmStandin();
    fcm.respond((req) => {
      const token = req.body?.message?.token as string;
      arrivals.set(token, [...(arrivals.get(token) ?? []), Date.now()]);
      return undefined;
    });
    dir = mkdtempSync(join(tmpdir(), 'islet-throttle-cluster-'));
    writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('spread-project')));
    const { url } = await testDatabase();
    const config =
      `[security]\nmaster_key = "${Buffer.alloc(32, 7).toString('base64')}"\n` +
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[cluster]\nlease_seconds = 10\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n[apps.fcm]\nservice_account_file = "${join(dir, 'firebase.json')}"\nendpoint = "${fcm.url}"\n`;
    for (const n of [0, 1]) {
      const own = join(dir, `instance-${n}`);
      mkdirSync(own);
      servers.push(await spawnServer(own, config, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } }));
    }
    const { admin } = serverClient(() => servers[0]!.url, SECRET, 't');
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'promo', title: 'Sale', body: 'Now on' }] })).status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) if (server.proc.exitCode === null) await server.stop();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const via = (server: SpawnedServer) => serverClient(() => server.url, SECRET, 't');
  const phones = async (group: string, count = 10) => {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      const token = `fcm-${group}-${i}-${crypto.randomUUID()}`;
      expect((await via(servers[i % 2]!).call('POST', `/api/apps/${APP}/devices`, { endUserId: `${group}-${i}`, platform: 'android', token })).status).toBe(200);
      tokens.push(token);
    }
    return tokens;
  };
  const sendVia = (server: SpawnedServer, group: string, count: number, throttlePerMinute: number) =>
    via(server).call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'promo', targetUsers: Array.from({ length: count }, (_, i) => `${group}-${i}`), throttlePerMinute });
  const arrived = (tokens: string[]) => tokens.flatMap((t) => arrivals.get(t) ?? []).sort((a, b) => a - b);
  const expectSpread = (times: number[], start: number, perMinute: number) => {
    times.forEach((at, k) => expect(at).toBeGreaterThanOrEqual(start + Math.floor((k * 60_000) / perMinute)));
  };

  test('ten at 60 a minute with two instances claiming: once each, spread over at least 6 s, each no earlier than its slot', async () => {
    const tokens = await phones('both');
    const before = Date.now();
    expect((await sendVia(servers[0]!, 'both', 10, 60)).body.messageCount).toBe(10);
    await until('every phone has it', () => tokens.every((t) => arrivals.has(t)), { timeoutMs: 40_000 });
    // Time for a second copy to arrive, had two instances sent one delivery.
    await Bun.sleep(1500);
    const times = arrived(tokens);
    expect(times).toHaveLength(10);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(6000);
    expectSpread(times, before, 60);
  }, 60_000);

  test('a cancel through the other instance stops the rest on both', async () => {
    const tokens = await phones('stop');
    const before = Date.now();
    const sent = await sendVia(servers[0]!, 'stop', 10, 60);
    await until('three arrived', () => arrived(tokens).length >= 3, { timeoutMs: 20_000 });
    const cancel = await via(servers[1]!).call('DELETE', `/api/apps/${APP}/notifications/${sent.body.messageId}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.cancelled).toBeGreaterThanOrEqual(1);
    await Bun.sleep(Math.max(0, before + 11_000 - Date.now()));
    expect(arrived(tokens)).toHaveLength(10 - cancel.body.cancelled);
  }, 60_000);

  test('one instance killed (-9) mid-throttle: the other sends the rest: every phone gets it, none earlier than its slot', async () => {
    const tokens = await phones('survive');
    const before = Date.now();
    expect((await sendVia(servers[1]!, 'survive', 10, 60)).body.messageCount).toBe(10);
    await until('three arrived', () => arrived(tokens).length >= 3, { timeoutMs: 20_000 });
    const victim = servers[0]!;
    victim.proc.kill('SIGKILL');
    await victim.proc.exited;
    // A delivery the victim had claimed goes again once its lease (10 s) ran out: at least once.
    await until('every phone has it', () => tokens.every((t) => arrivals.has(t)), { timeoutMs: 60_000 });
    const firsts = tokens.map((t) => arrivals.get(t)![0]!).sort((a, b) => a - b);
    expectSpread(firsts, before, 60);
    expect(firsts.at(-1)! - firsts[0]!).toBeGreaterThanOrEqual(6000);
  }, 90_000);
});
