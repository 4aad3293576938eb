import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsToken, startApnsStandin, type ApnsReceived, type ApnsStandin } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { testDatabase } from '../../test-support/postgres';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

forEachDatabase('scheduled-starts-e2e', (database) => {
  /**
   * Issue 47's scheduled starts through a real server process and the APNs and FCM stand-ins: a
   * start goes when due (not before) to an iPhone's push-to-start token and to an Android device,
   * one cancelled before then sends nothing, and one scheduled when the server is killed with
   * SIGKILL goes once after the restart.
   */
  const APP = 'kickoff';
  const SECRET = 'sk_scheduled_starts';
  const BUNDLE = 'com.example.kickoff';
  const key = apnsKey();
  let apns: ApnsStandin;
  let fcm: FcmStandin;
  let server: SpawnedServer;
  let dir: string;
  let config: string;
  let env: Record<string, string> = {};
  const pushToStart: ApnsReceived[] = [];

  const start = () => spawnServer(dir, config, undefined, { env, database: 'sqlite' });

  beforeAll(async () => {
    apns = await startApnsStandin({ keys: [key], bundleIds: [BUNDLE] });
    apns.onDelivered((req) => pushToStart.push(req));
    fcm = await startFcmStandin();
    dir = mkdtempSync(join(tmpdir(), 'islet-scheduled-starts-'));
    // The same database across the restart: on PostgreSQL one made here, named by the environment.
    if (database === 'postgres') env = { ISLET_DATABASE_URL: (await testDatabase()).url };
    await Bun.write(join(dir, 'firebase.json'), JSON.stringify(fcm.serviceAccount('kickoff-project')));
    await Bun.write(join(dir, 'apns.p8'), key.key);
    await Bun.write(join(dir, 'ca.pem'), apns.ca);
    config =
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\nplan = "pro"\n[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n` +
      `[apps.apns]\nbundle_id = "${BUNDLE}"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n`;
    server = await start();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await fcm?.close();
    await apns?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const { call } = serverClient(() => server.url, SECRET, 't');
  const android = async (endUserId: string) => {
    const token = `fcm-${endUserId}-${crypto.randomUUID()}`;
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'android', token })).status).toBe(200);
    return token;
  };
  const iphone = async (endUserId: string) => {
    const token = apnsToken();
    expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'ios', token: apnsToken(), pushToStartToken: token })).status).toBe(200);
    return token;
  };
  const schedule = (targetUsers: string[], times: Record<string, string>) =>
    call('POST', `/api/apps/${APP}/live-activities`, { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0:0' }, targetUsers, ...times });
  const startsTo = (token: string) => [...fcm.inbox(token).map((m) => m.message.data.event as string), ...pushToStart.filter((r) => r.token === token).map((r) => r.body.aps.event as string)];

  /** Waits for `token`'s first start, failing if one arrives before `notBefore`; answers how late it was (ms). */
  async function arrival(token: string, notBefore: number, timeoutMs = 30_000): Promise<number> {
    const deadline = notBefore + timeoutMs;
    for (;;) {
      const now = Date.now();
      if (startsTo(token).length > 0) {
        // Polled every 20 ms: an arrival seen this early was there before its time.
        expect(now).toBeGreaterThanOrEqual(notBefore);
        return now - notBefore;
      }
      if (now > deadline) throw new Error(`nothing arrived for ${token} by ${new Date(deadline).toISOString()}\n${server.output().slice(-2000)}`);
      await Bun.sleep(20);
    }
  }

  test('a start time in the past, more than 30 days ahead, malformed, or given twice answers 400 naming startAt', async () => {
    await android('eve');
    const now = Date.now();
    for (const [times, detail] of [
      [{ startAt: new Date(now - 120_000).toISOString() }, 'startAt is in the past'],
      [{ startAt: new Date(now + 31 * 86_400_000).toISOString() }, 'startAt is more than 30 days ahead'],
      [{ startAt: 'tomorrow at eight' }, 'startAt must be an ISO 8601 time'],
      [{ startAt: new Date(now + 60_000).toISOString(), startAtLocal: '2026-12-24T20:00' }, 'startAt and startAtLocal cannot both be given'],
      [{ startAtLocal: '2026-12-24 20:00' }, 'startAtLocal must be a local date and time'],
    ] as const) {
      const res = await schedule(['eve'], times);
      expect([res.status, res.body.detail]).toEqual([400, expect.stringContaining(detail)]);
    }
    expect((await call('GET', `/api/apps/${APP}/live-activities?state=Scheduled`)).body.total).toBe(0);
  });

  test('a start 4 s ahead answers Scheduled, goes to the iPhone and the Android device when due and not before, and is Active from then', async () => {
    const pixel = await android('ada');
    const ios = await iphone('ivy');
    const at = Date.now() + 4000;
    const res = await schedule(['ada', 'ivy'], { startAt: new Date(at).toISOString() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ activityCount: 2, scheduledFor: new Date(at).toISOString() });
    for (const a of res.body.activities) expect(a).toMatchObject({ state: 'Scheduled', scheduledFor: new Date(at).toISOString(), startedAt: new Date(at).toISOString() });
    const id = (res.body.activities as { id: string; endUserId: string }[]).find((a) => a.endUserId === 'ada')!.id;
    // Not started yet: an update is refused as for an activity that is not active.
    expect((await call('PATCH', `/api/apps/${APP}/live-activities/${id}`, { contentState: { value: '1:0' } })).status).toBe(409);
    console.log(`startAt: Android start arrived ${await arrival(pixel, at)} ms after its time, iPhone's ${await arrival(ios, at)} ms`);
    expect(startsTo(pixel)).toEqual(['start']);
    expect(startsTo(ios)).toEqual(['start']);
    expect(pushToStart.find((r) => r.token === ios)!.headers).toMatchObject({ 'apns-push-type': 'liveactivity', 'apns-topic': `${BUNDLE}.push-type.liveactivity` });
    const shown = (await call('GET', `/api/apps/${APP}/live-activities/${id}`)).body;
    expect(shown.state).toBe('Active');
    expect(shown.scheduledFor).toBeUndefined();
    // Its minutes count from the real start, not from when it was scheduled.
    expect(Date.parse(shown.startedAt)).toBeGreaterThanOrEqual(at);
  }, 60_000);

  test('a scheduled start cancelled before its time sends nothing', async () => {
    const pixel = await android('bob');
    const at = Date.now() + 2500;
    const res = await schedule(['bob'], { startAt: new Date(at).toISOString() });
    const id = res.body.activities[0].id as string;
    expect((await call('DELETE', `/api/apps/${APP}/live-activities/${id}`)).body).toEqual({ success: true });
    expect((await call('GET', `/api/apps/${APP}/live-activities/${id}`)).body).toMatchObject({ state: 'Ended' });
    // A start after it arrives; the cancelled one, due before it, does not.
    const after = await schedule(['bob'], { startAt: new Date(at + 1500).toISOString() });
    await arrival(pixel, at + 1500);
    await Bun.sleep(500);
    expect(fcm.inbox(pixel).map((m) => m.message.data.activityId)).toEqual([after.body.activities[0].id]);
    expect((await call('DELETE', `/api/apps/${APP}/live-activities/${id}`)).status).toBe(409);
  }, 60_000);

  test('a server killed with SIGKILL while a start is scheduled starts it once after the restart', async () => {
    const pixel = await android('cy');
    const at = Date.now() + 2000;
    expect((await schedule(['cy'], { startAt: new Date(at).toISOString() })).status).toBe(200);
    server.proc.kill('SIGKILL');
    await server.proc.exited;
    await Bun.sleep(Math.max(0, at - Date.now()) + 1000);
    expect(startsTo(pixel)).toEqual([]);
    server = await start();
    await arrival(pixel, at, 60_000);
    // Given the time to go twice, it went once.
    await Bun.sleep(2500);
    expect(startsTo(pixel)).toEqual(['start']);
  }, 90_000);
});
