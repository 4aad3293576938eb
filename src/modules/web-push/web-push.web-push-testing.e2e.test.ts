import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';
import { eventually } from '../../test-support/eventually';

// web-push-testing (npm): a push service written by others that checks the VAPID JWT against the
// subscription's application server key and decrypts with http_ece: the outside check of a send
// through a served process, from the send request to the decrypted notification.
const require = createRequire(import.meta.url);
const WebPushTestingServer = require('web-push-testing/src/server.js');
const { PushApiModel } = require('web-push-testing/src/PushApiModel.js');

const APP = 'wpt';
const SECRET = 'sk_wpt_e2e';
let listener: Server;
let base: string;
let served: ServedApp;
const { call, admin } = serverClient(() => served.server.url, SECRET, 't');
const post = async (path: string, body: unknown) =>
  (await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;

beforeAll(async () => {
  const model = new PushApiModel();
  const service = new WebPushTestingServer(model, 0);
  service.setRequestHandlers();
  // Its own start listens on every interface; tests stay on loopback.
  listener = service._app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  base = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  model.notifyUrl = `${base}/notify/`;
  served = await serveApp({ app: APP, secret: SECRET, more: '[apps.web_push]\nsubject = "mailto:ops@example.com"\ndefault_url = "https://shop.example.com/"\n' });
}, 60_000);

afterAll(async () => {
  await served?.close();
  await new Promise((resolve) => listener.close(resolve));
}, 30_000);

test('a notification send through a served process reaches web-push-testing, which verifies the VAPID JWT and decrypts it', async () => {
  const { publicKey } = (await call('GET', `/api/apps/${APP}/web-push/public-key`)).body;
  const { data: sub } = await post('/subscribe', { userVisibleOnly: 'true', applicationServerKey: publicKey });
  const subscription = { endpoint: sub.endpoint, expirationTime: null, keys: sub.keys };
  expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'web', subscription })).status).toBe(200);
  const release = await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi {{name}}', body: 'Welcome.' }] });
  expect(release.status).toBe(201);
  const { messageId } = (await call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'hi', variables: { name: 'Ada' } })).body;
  const messages = await eventually(async () => {
    const { data } = await post('/get-notifications', { clientHash: sub.clientHash });
    expect(data.messages).toHaveLength(1);
    return data.messages as string[];
  });
  expect(JSON.parse(messages[0]!)).toEqual({
    web_push: 8030,
    notification: { title: 'Hi Ada', body: 'Welcome.', navigate: 'https://shop.example.com/', data: { isletMessageId: messageId } },
  });
});
