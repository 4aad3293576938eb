import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offsetAt } from '../../../lib/wall-time';
import { apnsToken } from '../../../test-support/apns-standin';
import { eventually } from '../../../test-support/eventually';
import { serverClient } from '../../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../../test-support/spawn-server';

/** `HH:MM` on the clocks of `zone` at `instant`. */
const localTime = (zone: string, instant: number) => new Date(instant + offsetAt(zone, instant)).toISOString().slice(11, 16);

/**
 * Issue 48's "Done when" for quiet hours and frequency caps through a served process (SQLite,
 * simulator delivery, the real clock): a device inside its quiet hours gets a plain notification
 * only when its window ends in its zone, also after the server was killed (-9) meanwhile; a device
 * in daytime and a time-sensitive notification go at once; the status shows it held meanwhile.
 * Under a cap of 2, three promotions and a time-sensitive code reach a person as two promotions and the code.
 */
describe('quiet hours and frequency caps through a served process', () => {
  const APP = 'calm';
  const SECRET = 'sk_calm';
  let dir: string;
  let config: string;
  let server: SpawnedServer;
  const { call, admin } = serverClient(() => server.url, SECRET, 't');
  const register = async (endUserId: string, label: string, timeZone?: string) => {
    const res = await call('POST', `/api/apps/${APP}/devices`, { endUserId, platform: 'ios', token: apnsToken(label), ...(timeZone && { timeZone }) });
    expect(res.status).toBe(200);
    return res.body.device.id as string;
  };
  const send = async (templateSlug: string, targetUsers: string[]) => {
    const res = await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug, targetUsers });
    expect(res.status).toBe(200);
    return res.body.messageId as string;
  };
  const status = async (messageId: string) => (await call('GET', `/api/apps/${APP}/notifications/${messageId}`)).body;
  const deliveries = async (messageId: string) =>
    ((await admin('GET', `/api/admin/apps/${APP}/deliveries?messageId=${messageId}`)).body.deliveries as { deviceId: string; status: string; reason: string | null; nextAttemptAt: string; updatedAt: string }[]);
  const of = async (messageId: string, deviceId: string) => (await deliveries(messageId)).find((d) => d.deviceId === deviceId)!;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-limits-'));
    config =
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n`;
    server = await spawnServer(dir, config);
    const templates = [
      { slug: 'promo', title: 'Sale', body: 'Everything half price' },
      { slug: 'code', title: 'Your code', body: '123456', interruptionLevel: 'time-sensitive' },
    ];
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    if (server?.proc.exitCode === null) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test('held until the window ends in the device’s zone, across a kill -9; daytime and time-sensitive at once', async () => {
    // The window ends at the next whole minute (15 s ahead at least) in Kathmandu (+5:45), and
    // began two hours before: Los Angeles, some 14 hours behind, is in daytime.
    const now = Date.now();
    let ends = Math.ceil(now / 60_000) * 60_000;
    if (ends - now < 15_000) ends += 60_000;
    const quietHours = { start: localTime('Asia/Kathmandu', ends - 2 * 3_600_000), end: localTime('Asia/Kathmandu', ends) };
    const patched = await admin('PATCH', `/api/admin/apps/${APP}`, { quietHours });
    expect(patched.body.quietHours).toEqual(quietHours);
    const night = await register('ada', 'kathmandu', 'Asia/Kathmandu');
    const day = await register('bob', 'los-angeles', 'America/Los_Angeles');

    const promo = await send('promo', ['ada', 'bob']);
    const code = await send('code', ['ada', 'bob']);
    await eventually(async () => expect((await status(code)).deliveries).toMatchObject({ total: 2, sent: 2 }));
    await eventually(async () => expect((await status(promo)).deliveries).toMatchObject({ total: 2, held: 1, sent: 1 }));
    expect((await of(promo, day)).status).toBe('sent');
    const held = await of(promo, night);
    expect(held).toMatchObject({ status: 'held', reason: `quiet hours until ${quietHours.end} (Asia/Kathmandu)`, nextAttemptAt: new Date(ends).toISOString() });

    // Killed while it waits; the server that comes back on the same database sends it when the window ends.
    server.proc.kill('SIGKILL');
    await server.proc.exited;
    server = await spawnServer(dir, config);
    expect((await of(promo, night)).status).toBe('held');
    await eventually(async () => expect((await of(promo, night)).status).toBe('sent'), { timeoutMs: ends - Date.now() + 20_000 });
    expect(Date.parse((await of(promo, night)).updatedAt)).toBeGreaterThanOrEqual(ends);
    expect((await status(promo)).deliveries).toMatchObject({ total: 2, held: 0, sent: 2 });
    expect((await admin('PATCH', `/api/admin/apps/${APP}`, { quietHours: null })).body.quietHours).toBeNull();
  }, 150_000);

  test('under a cap of 2, three promotions and one time-sensitive code reach a person with two phones as two promotions and the code', async () => {
    expect((await admin('PATCH', `/api/admin/apps/${APP}`, { frequencyCap: { count: 2, perHours: 24 } })).body.frequencyCap).toEqual({ count: 2, perHours: 24 });
    const phone = await register('cy', 'phone');
    const tablet = await register('cy', 'tablet');
    const promos = [await send('promo', ['cy']), await send('promo', ['cy']), await send('promo', ['cy'])];
    const code = await send('code', ['cy']);
    for (const messageId of [promos[0]!, promos[1]!, code]) await eventually(async () => expect((await status(messageId)).deliveries).toMatchObject({ total: 2, sent: 2 }));
    const third = await status(promos[2]!);
    expect(third.deliveries).toMatchObject({ total: 2, dropped: 2, sent: 0, queued: 0 });
    expect((await deliveries(promos[2]!)).map((d) => [d.deviceId, d.status, d.reason]).sort()).toEqual(
      [
        [phone, 'dropped', 'frequency cap'],
        [tablet, 'dropped', 'frequency cap'],
      ].sort(),
    );
  }, 60_000);
});
