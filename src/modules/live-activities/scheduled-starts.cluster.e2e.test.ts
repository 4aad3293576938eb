import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { sharedPostgres, testDatabase } from '../../test-support/postgres';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

/**
 * Scheduled Live Activity starts with two server processes on one PostgreSQL: each activity starts
 * from exactly one instance, also when one of them is killed (-9) while the starts wait.
 */
describe('scheduled starts on several instances (PostgreSQL)', () => {
  const APP = 'kickoff';
  const SECRET = 'sk_scheduled_starts_cluster';
  const USERS = 6;
  let fcm: FcmStandin;
  let dir: string;
  const servers: SpawnedServer[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    await sharedPostgres();
    fcm = await startFcmStandin();
    dir = mkdtempSync(join(tmpdir(), 'islet-scheduled-starts-cluster-'));
    writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('kickoff-project')));
    const { url } = await testDatabase();
    const config =
      `[security]\nmaster_key = "${Buffer.alloc(32, 7).toString('base64')}"\n` +
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[cluster]\nlease_seconds = 10\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\nplan = "pro"\n[apps.fcm]\nservice_account_file = "${join(dir, 'firebase.json')}"\nendpoint = "${fcm.url}"\n`;
    for (const n of [0, 1]) {
      const own = join(dir, `instance-${n}`);
      mkdirSync(own);
      servers.push(await spawnServer(own, config, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } }));
    }
    const { call } = serverClient(() => servers[0]!.url, SECRET, 't');
    for (let i = 0; i < USERS; i++) {
      const token = `fcm-kickoff-${i}-${crypto.randomUUID()}`;
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: `u${i}`, platform: 'android', token })).status).toBe(200);
      tokens.push(token);
    }
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) if (server.proc.exitCode === null) await server.stop();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const startsOf = (token: string, label: string) => fcm.inbox(token).filter((m) => m.message.data.event === 'start' && JSON.parse(m.message.data.attributes).label === label);
  const scheduleVia = (server: SpawnedServer, label: string, at: number) =>
    serverClient(() => server.url, SECRET, 't').call('POST', `/api/apps/${APP}/live-activities`, {
      templateSlug: 'metric-live',
      attributes: { label },
      contentState: { value: '0' },
      startAt: new Date(at).toISOString(),
    });

  test('starts scheduled through either instance go once to every device', async () => {
    const at = Date.now() + 3000;
    expect((await scheduleVia(servers[0]!, 'first', at)).body.activityCount).toBe(USERS);
    expect((await scheduleVia(servers[1]!, 'second', at)).body.activityCount).toBe(USERS);
    await until('every device has both starts', () => tokens.every((t) => startsOf(t, 'first').length >= 1 && startsOf(t, 'second').length >= 1), { timeoutMs: 30_000 });
    // Time to go a second time, had two instances claimed a start.
    await Bun.sleep(2500);
    for (const token of tokens) expect([startsOf(token, 'first').length, startsOf(token, 'second').length]).toEqual([1, 1]);
  }, 60_000);

  test('one instance killed (-9) while starts wait: the other starts each once', async () => {
    const at = Date.now() + 4000;
    expect((await scheduleVia(servers[0]!, 'after the kill', at)).status).toBe(200);
    const victim = servers[0]!;
    victim.proc.kill('SIGKILL');
    await victim.proc.exited;
    await until('every device has it', () => tokens.every((t) => startsOf(t, 'after the kill').length > 0), { timeoutMs: 60_000 });
    await Bun.sleep(2500);
    for (const token of tokens) expect(startsOf(token, 'after the kill')).toHaveLength(1);
  }, 90_000);
});
