import { afterAll, beforeAll, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsReceived, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { until } from '../../test-support/eventually';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';

/** Issue 47's push-to-start pacing through a served process: past `per_device` in the window, a start waits in the outbox. */
const APP = 'paced';
const SECRET = 'sk_paced_e2e';
const key = apnsKey();
let apns: ApnsStandin;
let served: ServedApp;
const starts: ApnsReceived[] = [];

beforeAll(async () => {
  apns = await startApnsStandin({ keys: [key] });
  apns.onDelivered((r) => starts.push(r));
  served = await serveApp({
    app: APP,
    secret: SECRET,
    more:
      `plan = "pro"\n[apps.apns]\nbundle_id = "com.example.paced"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${apns.url}"\nca_file = "ca.pem"\n` +
      `[push_to_start]\nper_device = 2\nwindow_minutes = 5\n`,
    files: { 'apns.p8': key.key, 'ca.pem': apns.ca },
  });
}, 30_000);
afterAll(async () => {
  await served?.close();
  await apns?.close();
}, 30_000);

const { call, admin } = serverClient(() => served.server.url, SECRET, 't');

test('a third push-to-start to one iPhone within the window waits queued until the window allows; another iPhone is not held back', async () => {
  const ann = apnsToken();
  const bob = apnsToken();
  expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ann', platform: 'ios', token: apnsToken(), pushToStartToken: ann })).status).toBe(200);
  expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'bob', platform: 'ios', token: apnsToken(), pushToStartToken: bob })).status).toBe(200);
  const ids: string[] = [];
  for (const value of ['1', '2', '3']) {
    const res = await call('POST', `/api/apps/${APP}/live-activities`, { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value }, targetUsers: ['ann'] });
    expect(res.status).toBe(200);
    ids.push(res.body.activities[0].id);
  }
  expect((await call('POST', `/api/apps/${APP}/live-activities`, { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: 'b' }, targetUsers: ['bob'] })).status).toBe(200);
  await until('two of ann’s starts and bob’s went', () => starts.filter((r) => r.token === ann).length === 2 && starts.some((r) => r.token === bob), { detail: () => served.server.output() });
  const third = (await admin('GET', `/api/admin/apps/${APP}/deliveries?activityId=${ids[2]}`)).body.deliveries[0];
  expect(third.status).toBe('queued');
  const first = (await admin('GET', `/api/admin/apps/${APP}/deliveries?activityId=${ids[0]}`)).body.deliveries[0];
  // Due once the first start leaves the 5-minute window.
  expect(Date.parse(third.nextAttemptAt)).toBe(Date.parse(first.createdAt) + 300_000);
  // The two that went may arrive in either order (the worker sends side by side).
  expect(starts.filter((r) => r.token === ann).map((r) => r.body.aps['content-state'].value).sort()).toEqual(['1', '2']);
}, 30_000);
