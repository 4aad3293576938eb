import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { AppContext } from '../../../context';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';

const sign = (secret: string, endUserId: string) => createHmac('sha256', secret).update(endUserId).digest('hex');

// A fresh database per test and a dozen requests: on PostgreSQL on a busy 2-core machine that can
// pass 5 s (a bound on the machine, not on Islet).
setDefaultTimeout(20_000);

forEachDatabase('notification-receipts', (database) => {
  let h: Harness<AppContext>;
  let signingSecret: string;
  afterEach(() => h?.close());

  const received = (messageId: string) => `/api/apps/a1/notifications/${messageId}/received`;

  async function setup() {
    h = await createHarness({ database });
    signingSecret = (await h.createApp({ id: 'a1' })).signingSecret;
    await h.createApp({ id: 'a2' });
    const localized = { slug: 'welcome', title: 'Hi', body: 'Hello', localizations: { de: { title: 'Hallo' } } };
    expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [localized] })).status).toBe(201);
  }
  async function register(endUserId: string, label: string, locale?: string): Promise<string> {
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform: 'ios', token: apnsToken(label), ...(locale && { locale }) });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.device.id;
  }
  async function send(targetUsers: string[]): Promise<string> {
    const res = await h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'welcome', targetUsers });
    expect(res.status).toBe(200);
    return res.body.messageId;
  }
  const report = (messageId: string, endUserId: string, deviceId: string, headers?: Record<string, string>) =>
    h.request('POST', received(messageId), { body: { endUserId, deviceId }, headers: headers ?? { 'x-end-user-signature': sign(signingSecret, endUserId) } });
  const status = async (messageId: string) => (await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`)).body;

  test('counted once per device, in any language of the send, by signature or App Secret; status and list say received, apart from opened', async () => {
    await setup();
    const ada = await register('ada', 'ada-phone', 'de-AT');
    const bob = await register('bob', 'bob-phone');
    const messageId = await send(['ada', 'bob']);
    expect((await report(messageId, 'ada', ada)).body).toEqual({ success: true, counted: true });
    // The extension ran twice (a retried report): answered, counted once.
    const again = await report(messageId, 'ada', ada);
    expect(again).toMatchObject({ status: 200, body: { success: true, counted: false } });
    expect((await h.service('a1', 'POST', received(messageId), { endUserId: 'bob', deviceId: bob })).body).toEqual({ success: true, counted: true });
    expect(await status(messageId)).toMatchObject({ received: 2, opened: 0 });
    const list = await h.service('a1', 'GET', '/api/apps/a1/notifications');
    expect(list.body.messages).toMatchObject([{ messageId, received: 2, opened: 0 }]);
    // A message nobody reported: 0 in both.
    const quiet = await send(['ada']);
    expect(await status(quiet)).toMatchObject({ received: 0 });
    expect((await h.service('a1', 'GET', '/api/apps/a1/notifications')).body.messages[0]).toMatchObject({ messageId: quiet, received: 0 });
  });

  test('a wrong signature, one for another end user, or none is 401 and counts nothing', async () => {
    await setup();
    const ada = await register('ada', 'ada-phone');
    const messageId = await send(['ada']);
    const attempts: Record<string, string>[] = [{ 'x-end-user-signature': sign('ss_wrong', 'ada') }, { 'x-end-user-signature': sign(signingSecret, 'bob') }, {}];
    for (const headers of attempts) {
      const res = await report(messageId, 'ada', ada, headers);
      expect(res.status).toBe(401);
      expect(res.body.title).toBe('Unauthorized');
    }
    expect((await status(messageId)).received).toBe(0);
  });

  test('404 for an unknown message, another app’s, a device it did not go to, and an unknown device', async () => {
    await setup();
    const ada = await register('ada', 'ada-phone');
    const bob = await register('bob', 'bob-phone');
    const toAda = await send(['ada']);
    expect((await report('msg_nope', 'ada', ada)).body).toEqual({ title: 'Not Found', status: 404, detail: 'message not found' });
    expect((await h.service('a2', 'POST', `/api/apps/a2/notifications/${toAda}/received`, { endUserId: 'ada', deviceId: ada })).body.detail).toBe('message not found');
    expect((await report(toAda, 'bob', bob)).body).toEqual({ title: 'Not Found', status: 404, detail: 'message was not sent to this device' });
    expect((await report(toAda, 'ada', bob)).status).toBe(404);
    expect((await report(toAda, 'ada', 'dev_unknown')).status).toBe(404);
    expect((await status(toAda)).received).toBe(0);
  });

  test('a body missing endUserId or deviceId, or with another field, is 400 naming it', async () => {
    await setup();
    const missing = await h.service('a1', 'POST', received('msg_x'), { endUserId: 'ada' });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toContain('deviceId');
    const noUser = await h.service('a1', 'POST', received('msg_x'), { deviceId: 'dev_x' });
    expect(noUser.status).toBe(400);
    expect(noUser.body.detail).toContain('endUserId');
    // Signed without the endUserId it signs.
    const unsigned = await h.request('POST', received('msg_x'), { body: { deviceId: 'dev_x' }, headers: { 'x-end-user-signature': sign(signingSecret, 'ada') } });
    expect(unsigned.body).toEqual({ title: 'Bad Request', status: 400, detail: 'endUserId is required' });
    const extra = await h.service('a1', 'POST', received('msg_x'), { endUserId: 'ada', deviceId: 'dev_x', at: 'now' });
    expect(extra.status).toBe(400);
    expect(extra.body.detail).toContain('at');
  });
});
