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
 * Scheduled sends with two server processes on one PostgreSQL: each part goes out from exactly one
 * instance, also when one of them is killed (-9) while the sends wait.
 */
describe('scheduled sends on several instances (PostgreSQL)', () => {
  const APP = 'later';
  const SECRET = 'sk_scheduled_cluster';
  const DEVICES = 6;
  let fcm: FcmStandin;
  let dir: string;
  const servers: SpawnedServer[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    await sharedPostgres();
    fcm = await startFcmStandin();
    dir = mkdtempSync(join(tmpdir(), 'islet-scheduled-cluster-'));
    writeFileSync(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('later-project')));
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
    const { call, admin } = serverClient(() => servers[0]!.url, SECRET, 't');
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'remind', title: 'Reminder', body: '{{what}}' }] })).status).toBe(201);
    for (let i = 0; i < DEVICES; i++) {
      const token = `fcm-cluster-${i}-${crypto.randomUUID()}`;
      expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: `u${i}`, platform: 'android', token })).status).toBe(200);
      tokens.push(token);
    }
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) if (server.proc.exitCode === null) await server.stop();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const bodies = (token: string) => fcm.inbox(token).map((m) => m.message.notification?.body as string);
  const sendVia = (server: SpawnedServer, what: string, at: number) =>
    serverClient(() => server.url, SECRET, 't').call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'remind', variables: { what }, sendAt: new Date(at).toISOString() });

  test('sends scheduled through either instance go out once to every device', async () => {
    const at = Date.now() + 3000;
    expect((await sendVia(servers[0]!, 'via first', at)).body.messageCount).toBe(DEVICES);
    expect((await sendVia(servers[1]!, 'via second', at)).body.messageCount).toBe(DEVICES);
    await until('every device has both', () => tokens.every((t) => fcm.inbox(t).length >= 2), { timeoutMs: 30_000 });
    // Time to go a second time, had two instances claimed a part.
    await Bun.sleep(2500);
    for (const token of tokens) expect(bodies(token).sort()).toEqual(['via first', 'via second']);
  }, 60_000);

  test('one instance killed (-9) while sends wait: the other sends each once', async () => {
    const at = Date.now() + 4000;
    expect((await sendVia(servers[0]!, 'after the kill', at)).status).toBe(200);
    const victim = servers[0]!;
    victim.proc.kill('SIGKILL');
    await victim.proc.exited;
    // The survivor leads once the victim's lease ran out (10 s) at the latest.
    await until('every device has it', () => tokens.every((t) => bodies(t).includes('after the kill')), { timeoutMs: 60_000 });
    await Bun.sleep(2500);
    for (const token of tokens) expect(bodies(token).filter((b) => b === 'after the kill')).toHaveLength(1);
  }, 90_000);
});
