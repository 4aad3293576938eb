import { afterAll, beforeAll, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../../test-support/apns-standin';
import { apnsKey } from '../../../test-support/delivery-fixtures';
import type { SpawnedServer } from '../../../test-support/spawn-server';
import { serveApp, type ServedApp } from '../../../test-support/served-app';
import { serverClient } from '../../../test-support/server-client';
import { closedPort } from '../../../test-support/closed-port';
import { forEachDatabase } from '../../../test-support/databases';
import { until } from '../../../test-support/eventually';

const SECRET = 'sk_channel_reset_e2e';
const key = apnsKey();
let served: ServedApp;
let apns: ApnsStandin;
let server: SpawnedServer;


const { call, admin } = serverClient(() => server.url, SECRET, 't');

/** The shared until, a failure showing the server's output. */
const waitUntil = (what: string, check: () => Promise<boolean> | boolean) => until(what, check, { detail: () => `server output:\n${server.output()}` });

forEachDatabase('credentials changed while a channel is down (real server process)', () => {
  // Inside: forEachDatabase's own beforeAll (which database the server gets) runs first.
  beforeAll(async () => {
    apns = await startApnsStandin({ keys: [key] });
    served = await serveApp({ app: 'reset', secret: SECRET });
    server = served.server;
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await apns?.close();
  }, 30_000);

  test('new APNs credentials release at once what was held for the old, unreachable endpoint, and its channel health is forgotten', async () => {
    const credentials = (endpoint: string) => ({ bundleId: 'com.example.reset', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint, ca: apns.ca });
    const wrong = `https://127.0.0.1:${closedPort()}`;
    expect((await admin('PUT', '/api/admin/apps/reset/apns', credentials(wrong))).status).toBe(200);
    const users = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
    for (const endUserId of users)
      expect((await call('POST', '/api/apps/reset/devices', { endUserId, platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() })).status).toBe(200);
    expect((await call('POST', '/api/apps/reset/live-activities', { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' }, targetUsers: users })).status).toBe(200);

    const channels = async () => (await admin('GET', '/api/admin/apps/reset/endpoints')).body.endpoints as { endpoint: string; state: string; held: number }[];
    await waitUntil('the wrong endpoint is down with deliveries held', async () => (await channels()).some((c) => c.endpoint === wrong && c.state === 'down' && c.held > 0));
    // The deprecated alias of before the rename answers too, under its old key.
    const alias = await admin('GET', '/api/admin/apps/reset/channels');
    expect(alias.status).toBe(200);
    expect(alias.body.channels.find((c: { endpoint: string }) => c.endpoint === wrong)).toMatchObject({ provider: 'apns', state: 'down' });

    expect((await admin('PUT', '/api/admin/apps/reset/apns', credentials(apns.url))).status).toBe(200);
    expect((await channels()).filter((c) => c.endpoint === wrong)).toEqual([]);
    const delivered = async () => (await admin('GET', '/api/admin/apps/reset/deliveries?status=delivered')).body.total as number;
    await waitUntil('every user got the start', async () => (await delivered()) === users.length);
    expect(new Set(apns.requests.map((r) => r.token)).size).toBe(users.length);
  }, 30_000);
});
