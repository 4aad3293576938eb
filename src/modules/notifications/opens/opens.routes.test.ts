import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createHarness, type Harness } from '../../../test-support/harness';
import { apnsToken } from '../../../test-support/apns-standin';
import { testRows } from '../../../test-support/test-sql';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';

const sign = (secret: string, endUserId: string) => createHmac('sha256', secret).update(endUserId).digest('hex');

forEachDatabase('notification-opens', (database) => {
  let h: Harness<AppContext>;
  let signingSecret: string;
  afterEach(() => h?.close());

  const welcome = { slug: 'welcome', title: 'Hi', body: 'Hello' };
  const opened = (messageId: string) => `/api/apps/a1/notifications/${messageId}/opened`;

  async function setup() {
    h = await createHarness({ database });
    signingSecret = (await h.createApp({ id: 'a1' })).signingSecret;
    await h.createApp({ id: 'a2' });
    expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [welcome] })).status).toBe(201);
  }

  async function register(endUserId: string, label: string, platform = 'ios'): Promise<string> {
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform, token: platform === 'ios' ? apnsToken(label) : label });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.device.id;
  }

  async function send(targetUsers: string[]): Promise<string> {
    const res = await h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'welcome', targetUsers });
    expect(res.status).toBe(200);
    return res.body.messageId;
  }

  /** An open as the device reports it, signed for `endUserId` (or with the headers given). */
  const report = (messageId: string, endUserId: string, deviceId: string, headers?: Record<string, string>) =>
    h.request('POST', opened(messageId), { body: { endUserId, deviceId }, headers: headers ?? { 'x-end-user-signature': sign(signingSecret, endUserId) } });

  const events = async () => (await testRows<{ type: string; body: string }>(h.ctx, 'SELECT type, body FROM webhook_events ORDER BY created_at')).map((e) => ({ type: e.type, ...JSON.parse(e.body) }));

  describe('reporting an open', () => {
    test('counted once per device in the message status, one notification.opened event, a repeat answers 200 uncounted', async () => {
      await setup();
      // Only stored here (no dispatcher runs): the served e2e test receives and verifies the posts.
      const hook = await h.admin('POST', '/api/admin/apps/a1/webhooks', { url: 'http://127.0.0.1:9/islet', events: ['notification.opened'] });
      expect(hook.status).toBe(201);
      const iphone = await register('ada', 'ada-phone');
      const pixel = await register('ada', 'ada-pixel', 'android');
      const messageId = await send(['ada']);

      const first = await report(messageId, 'ada', iphone);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ success: true, counted: true });
      expect((await report(messageId, 'ada', iphone)).body).toEqual({ success: true, counted: false });
      // The App Secret may report for a device too (a backend relaying the app's report).
      expect((await h.service('a1', 'POST', opened(messageId), { endUserId: 'ada', deviceId: pixel })).body).toEqual({ success: true, counted: true });

      const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`);
      expect(status.body.opened).toBe(2);
      const sent = await events();
      expect(sent.map((e) => [e.type, e.data.deviceId, e.data.platform])).toEqual([
        ['notification.opened', iphone, 'ios'],
        ['notification.opened', pixel, 'android'],
      ]);
      expect(sent[0]!.data).toEqual({ messageId, endUserId: 'ada', deviceId: iphone, platform: 'ios', openedAt: new Date(h.clock.now()).toISOString() });
    });

    test('a wrong signature or none is 401 and counts nothing', async () => {
      await setup();
      const iphone = await register('ada', 'ada-phone');
      const messageId = await send(['ada']);
      const attempts: Record<string, string>[] = [{ 'x-end-user-signature': sign(signingSecret, 'bob') }, { 'x-end-user-signature': 'zz' }, {}];
      for (const headers of attempts) {
        const res = await report(messageId, 'ada', iphone, headers);
        expect(res.status).toBe(401);
        expect(res.body.title).toBe('Unauthorized');
      }
      expect((await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`)).body.opened).toBe(0);
    });

    test('404 for an unknown message, another app’s, and for a device the message did not go to, another end user’s or a deleted one', async () => {
      await setup();
      const ada = await register('ada', 'ada-phone');
      const bob = await register('bob', 'bob-phone');
      const toAda = await send(['ada']);
      const toBob = await send(['bob']);

      const unknown = await report('msg_nope', 'ada', ada);
      expect(unknown.body).toEqual({ title: 'Not Found', status: 404, detail: 'message not found' });
      const otherApp = await h.service('a2', 'POST', `/api/apps/a2/notifications/${toAda}/opened`, { endUserId: 'ada', deviceId: ada });
      expect(otherApp.body.detail).toBe('message not found');
      // Ada's phone did not get Bob's message; Bob's phone is not Ada's.
      expect((await report(toBob, 'ada', ada)).body.detail).toBe('message was not sent to this device');
      expect((await report(toAda, 'ada', bob)).body.detail).toBe('message was not sent to this device');
      expect((await report(toAda, 'bob', bob)).status).toBe(404);
      expect((await report(toAda, 'ada', 'dev_unknown')).status).toBe(404);

      // Reported before the device was deleted, the open stays counted; after, nothing says whose it was.
      expect((await report(toAda, 'ada', ada)).body.counted).toBe(true);
      expect((await h.service('a1', 'DELETE', `/api/apps/a1/devices/${ada}`)).status).toBe(200);
      expect((await report(toAda, 'ada', ada)).body.detail).toBe('message was not sent to this device');
      expect((await h.service('a1', 'GET', `/api/apps/a1/notifications/${toAda}`)).body.opened).toBe(1);
    });

    test('a body without endUserId or deviceId is 400 naming the field', async () => {
      await setup();
      const res = await h.service('a1', 'POST', opened('msg_x'), { endUserId: 'ada' });
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain('deviceId');
    });
  });

  describe('listing messages', () => {
    test('newest first with their counts and opens, paged, total of all; another app sees none', async () => {
      await setup();
      const ada = await register('ada', 'ada-phone');
      await register('bob', 'bob-phone');
      await register('bob', 'bob-pixel', 'android');
      const first = await send(['ada']);
      h.clock.advance(1000);
      const second = await send(['ada', 'bob']);
      expect((await report(first, 'ada', ada)).status).toBe(200);

      const list = await h.service('a1', 'GET', '/api/apps/a1/notifications');
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(2);
      expect(list.body.messages.map((m: { messageId: string }) => m.messageId)).toEqual([second, first]);
      expect(list.body.messages[0]).toMatchObject({ templateSlug: 'welcome', releaseVersion: 1, opened: 0, deliveries: { total: 3, queued: 3 } });
      expect(list.body.messages[1]).toMatchObject({ opened: 1, deliveries: { total: 1, queued: 1, sent: 0 } });
      // The same counts as the status endpoint.
      const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${first}`);
      expect(list.body.messages[1].deliveries).toEqual(status.body.deliveries);
      expect(list.body.messages[1].createdAt).toBe(status.body.createdAt);

      const page = await h.service('a1', 'GET', '/api/apps/a1/notifications?limit=1&offset=1');
      expect(page.body).toMatchObject({ total: 2, messages: [{ messageId: first }] });
      const other = await h.service('a2', 'GET', '/api/apps/a2/notifications');
      expect(other.body).toEqual({ messages: [], total: 0 });
      const bad = await h.service('a1', 'GET', '/api/apps/a1/notifications?limit=0');
      expect(bad.body).toEqual({ title: 'Bad Request', status: 400, detail: 'limit must be an integer from 1 to 100' });
    });

    test('a localized send is one message: a device that got a language opens it, the list counts every language', async () => {
      h = await createHarness({ database });
      signingSecret = (await h.createApp({ id: 'a1' })).signingSecret;
      const localized = { ...welcome, localizations: { de: { title: 'Hallo' }, fr: { title: 'Salut' } } };
      expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [localized] })).status).toBe(201);
      const devices: Record<string, string> = {};
      for (const [user, locale] of [['ada', 'de-AT'], ['bob', 'fr'], ['cy', 'en']] as const) {
        const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: user, platform: 'ios', token: apnsToken(`${user}-phone`), locale });
        devices[user] = res.body.device.id;
      }
      const messageId = await send(['ada', 'bob', 'cy']);
      // Each got its own language's row; all three are the message.
      for (const user of ['ada', 'bob', 'cy']) expect((await report(messageId, user, devices[user]!)).body).toEqual({ success: true, counted: true });
      const list = await h.service('a1', 'GET', '/api/apps/a1/notifications');
      expect(list.body.messages[0]).toMatchObject({ messageId, opened: 3, deliveries: { total: 3, queued: 3 } });
      const status = await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`);
      expect(list.body.messages[0].deliveries).toEqual(status.body.deliveries);
    });
  });
});
