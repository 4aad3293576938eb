import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offsetAt } from '../../../lib/wall-time';
import { forEachDatabase } from '../../../test-support/databases';
import { until } from '../../../test-support/eventually';
import { startFcmStandin, type FcmStandin } from '../../../test-support/fcm-standin';
import { testDatabase } from '../../../test-support/postgres';
import { serverClient } from '../../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../../test-support/spawn-server';

forEachDatabase('scheduled-sends-e2e', (database) => {
  /**
   * Issue 37's scheduled sends through a real server process and the FCM stand-in: a send goes out
   * at its time (not before), each zone at its wall time, a cancelled one never, and one scheduled
   * when the server is killed with SIGKILL goes once after the restart.
   */
  const APP = 'later';
  const SECRET = 'sk_scheduled_e2e';
  let fcm: FcmStandin;
  let server: SpawnedServer;
  let dir: string;
  let config: string;
  let env: Record<string, string> = {};

  const start = () => spawnServer(dir, config, undefined, { env, database: 'sqlite' });

  beforeAll(async () => {
    fcm = await startFcmStandin();
    dir = mkdtempSync(join(tmpdir(), 'islet-scheduled-'));
    // The same database across the restart: on PostgreSQL one made here, named by the environment.
    if (database === 'postgres') env = { ISLET_DATABASE_URL: (await testDatabase()).url };
    await Bun.write(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('later-project')));
    config =
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`;
    server = await start();
    const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'remind', title: 'Reminder', body: '{{what}}' }] });
    expect(release.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await fcm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const { call, admin } = serverClient(() => server.url, SECRET, 't');
  const register = async (endUserId: string, timeZone?: string) => {
    const token = `fcm-${endUserId}-${crypto.randomUUID()}`;
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'android', token, ...(timeZone && { timeZone }) })).status).toBe(200);
    return token;
  };
  const send = (body: Record<string, unknown>) => call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'remind', ...body });
  const received = (token: string) => fcm.inbox(token).map((m) => m.message.notification?.body as string);

  /** Waits for `token`'s first notification, failing if one arrives before `notBefore`; answers how late it was (ms). */
  async function arrival(token: string, notBefore: number, timeoutMs = 30_000): Promise<number> {
    const deadline = notBefore + timeoutMs;
    for (;;) {
      const now = Date.now();
      if (fcm.inbox(token).length > 0) {
        // Polled every 20 ms: an arrival seen this early was there before its time.
        expect(now).toBeGreaterThanOrEqual(notBefore);
        return now - notBefore;
      }
      if (now > deadline) throw new Error(`nothing arrived for ${token} by ${new Date(deadline).toISOString()}\n${server.output().slice(-2000)}`);
      await Bun.sleep(20);
    }
  }

  test('a sendAt 5 s ahead arrives not before it, and a few seconds after at most', async () => {
    const token = await register('ada');
    const at = Date.now() + 5000;
    const res = await send({ variables: { what: 'in five seconds' }, sendAt: new Date(at).toISOString() });
    expect(res.body).toEqual({ messageCount: 1, messageId: expect.stringMatching(/^msg_/), scheduledFor: new Date(at).toISOString() });
    const late = await arrival(token, at);
    console.log(`sendAt: arrived ${late} ms after its time`);
    expect(late).toBeLessThan(10_000);
    expect(received(token)).toEqual(['in five seconds']);
  }, 60_000);

  test('a sendAtLocal reaches a device in Pacific/Kiritimati at that wall time while one in America/Los_Angeles waits for it there, 22 hours later', async () => {
    const kiritimati = await register('kiri', 'Pacific/Kiritimati');
    const la = await register('lax', 'America/Los_Angeles');
    const at = Math.ceil((Date.now() + 5000) / 1000) * 1000;
    // The wall time in Kiritimati at `at`, without offset.
    const wall = new Date(at + offsetAt('Pacific/Kiritimati', at)).toISOString().slice(0, 19);
    const res = await send({ variables: { what: 'good morning' }, sendAtLocal: wall, targetUsers: ['kiri', 'lax'] });
    expect(res.body).toEqual({ messageCount: 2, messageId: expect.stringMatching(/^msg_/), scheduledFor: new Date(at).toISOString() });
    const late = await arrival(kiritimati, at);
    console.log(`sendAtLocal: Kiritimati's arrived ${late} ms after its wall time`);
    await Bun.sleep(1500);
    expect(received(la)).toEqual([]);
    const status = (await call('GET', `/api/apps/${APP}/notifications/${res.body.messageId}`)).body;
    expect(status.deliveries.total).toBe(1);
    const laDue = at + offsetAt('Pacific/Kiritimati', at) - offsetAt('America/Los_Angeles', at + 22 * 3_600_000);
    expect(status.schedule).toMatchObject({ scheduledFor: new Date(at).toISOString(), scheduled: 1, cancelled: 0 });
    expect(status.schedule.parts.map((p: any) => ({ ...p, zones: p.zones.filter((z: string) => z === 'Pacific/Kiritimati' || z === 'America/Los_Angeles') }))).toEqual([
      { dueAt: new Date(at).toISOString(), status: 'sent', deliveries: 1, zones: ['Pacific/Kiritimati'] },
      { dueAt: new Date(laDue).toISOString(), status: 'scheduled', deliveries: 1, zones: ['America/Los_Angeles'] },
    ]);
    console.log(`sendAtLocal: Los Angeles's part is due ${(laDue - at) / 3_600_000} hours after Kiritimati's`);
    // Cancelled: Los Angeles's part will not go.
    expect((await call('DELETE', `/api/apps/${APP}/notifications/${res.body.messageId}`)).body).toEqual({ messageId: res.body.messageId, cancelled: 1 });
  }, 60_000);

  test('a cancelled send never arrives', async () => {
    const token = await register('bob');
    const at = Date.now() + 3000;
    const res = await send({ variables: { what: 'never' }, sendAt: new Date(at).toISOString(), targetUsers: ['bob'] });
    expect((await call('DELETE', `/api/apps/${APP}/notifications/${res.body.messageId}`)).body).toEqual({ messageId: res.body.messageId, cancelled: 1 });
    // A send after it arrives; the cancelled one, due before it, does not.
    const after = await send({ variables: { what: 'after' }, sendAt: new Date(at + 2000).toISOString(), targetUsers: ['bob'] });
    expect(after.status).toBe(200);
    await arrival(token, at + 2000);
    await Bun.sleep(500);
    expect(received(token)).toEqual(['after']);
    expect((await call('DELETE', `/api/apps/${APP}/notifications/${res.body.messageId}`)).status).toBe(409);
  }, 60_000);

  test('a server killed with SIGKILL while a send is scheduled sends it once after the restart, late rather than lost', async () => {
    const token = await register('cy');
    const at = Date.now() + 2000;
    expect((await send({ variables: { what: 'once' }, sendAt: new Date(at).toISOString(), targetUsers: ['cy'] })).status).toBe(200);
    server.proc.kill('SIGKILL');
    await server.proc.exited;
    await Bun.sleep(Math.max(0, at - Date.now()) + 1000);
    expect(received(token)).toEqual([]);
    server = await start();
    await arrival(token, at, 60_000);
    // Given the time to go twice, it went once.
    await Bun.sleep(2500);
    expect(received(token)).toEqual(['once']);
  }, 90_000);
});
