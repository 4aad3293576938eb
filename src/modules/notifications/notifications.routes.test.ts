import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../test-support/harness';
import { apnsToken } from '../../test-support/apns-standin';
import { testRows } from '../../test-support/test-sql';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('notifications', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const SEND = '/api/apps/a1/notifications/send';
  const RELEASES = '/api/admin/apps/a1/releases';
  const welcome = { slug: 'welcome', title: 'Hi {{ name }}', body: 'You have {{count}} new messages' };

  async function setup() {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
  }

  /** Registers a device through the public API (iOS tokens derived from `label`); returns its id. */
  async function register(endUserId: string, label: string, extra: { platform?: string; tester?: boolean } = {}): Promise<string> {
    const platform = extra.platform ?? 'ios';
    const token = platform === 'ios' ? apnsToken(label) : label;
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform, token, ...(extra.tester === undefined ? {} : { tester: extra.tester }) });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.device.id;
  }

  const send = (body: unknown) => h.service('a1', 'POST', SEND, body);

  /** What was queued: every message with its content, and the device ids of its deliveries. */
  async function queued() {
    const messages = await testRows<{ id: number; app_id: string; kind: string; content: string }>(h.ctx, 'SELECT id, app_id, kind, content FROM messages ORDER BY id');
    const all = [];
    for (const m of messages) {
      const deliveries = await testRows<{ device_id: string; status: string }>(h.ctx, 'SELECT device_id, status FROM deliveries WHERE message_id = ? ORDER BY device_id', [m.id]);
      all.push({ appId: m.app_id, kind: m.kind, content: JSON.parse(m.content), deliveries });
    }
    return all;
  }

  const deviceIds = (message: Awaited<ReturnType<typeof queued>>[number] | undefined) => message?.deliveries.map((d) => d.device_id) ?? [];

  describe('sending a notification', () => {
    test('the Live template is rendered once and queued for every valid device of every connected end user', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      const devices = [await register('u1', 't1'), await register('u1', 't2', { platform: 'android' }), await register('u2', 't3')];
      const res = await send({ templateSlug: 'welcome', variables: { name: 'Ada', count: '3' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ messageCount: 3 });
      const [message, ...others] = (await queued());
      expect(others).toEqual([]);
      expect(message).toMatchObject({
        appId: 'a1',
        kind: 'notification',
        content: { type: 'notification', templateSlug: 'welcome', releaseVersion: 1, title: 'Hi Ada', body: 'You have 3 new messages' },
      });
      expect(deviceIds(message)).toEqual([...devices].sort());
      expect(message!.deliveries.every((d) => d.status === 'pending')).toBe(true);
    });

    test('rendering: unknown variables ignored, missing ones empty, spaces inside braces allowed, no HTML escaping', async () => {
      await setup();
      const template = { slug: 'promo', title: '{{ who }} & {{missing}}!', body: '{{  html }}' };
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [template] });
      await register('u1', 't1');
      const res = await send({ templateSlug: 'promo', variables: { who: 'Tom & Jerry', html: '<b>"50%"</b>', unused: 'x' } });
      expect(res.body).toEqual({ messageCount: 1 });
      expect((await queued())[0]!.content).toMatchObject({ title: 'Tom & Jerry & !', body: '<b>"50%"</b>' });
    });

    test('targetUsers picks those end users: duplicates merged, unknown ids skipped', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      const u1 = await register('u1', 't1');
      await register('u2', 't2');
      const u3 = await register('u3', 't3');
      const res = await send({ templateSlug: 'welcome', targetUsers: ['u3', 'u1', 'u1', 'ghost'] });
      expect(res.body).toEqual({ messageCount: 2 });
      expect(deviceIds((await queued())[0])).toEqual([u1, u3].sort());
    });

    test('invalidated tokens are neither counted nor sent', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      const valid = await register('u1', 't1');
      const invalid = await register('u1', 't2');
      const onlyInvalid = await register('u2', 't3');
      await testRows(h.ctx, `UPDATE tokens SET state = 'invalid', invalid_reason = 'Unregistered' WHERE device_id IN (?, ?)`, [invalid, onlyInvalid]);
      expect((await send({ templateSlug: 'welcome' })).body).toEqual({ messageCount: 1 });
      expect((await send({ templateSlug: 'welcome', targetUsers: ['u2'] })).body).toEqual({ messageCount: 0 });
      const all = (await queued());
      expect(all).toHaveLength(1);
      expect(deviceIds(all[0])).toEqual([valid]);
    });

    test('with nobody to deliver to, the answer is 0 and nothing is written', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      expect((await send({ templateSlug: 'welcome' })).body).toEqual({ messageCount: 0 });
      expect((await queued())).toEqual([]);
    });

    test("another app's devices are never targeted", async () => {
      await setup();
      await h.createApp({ id: 'a2' });
      await h.service('a2', 'POST', '/api/apps/a2/devices', { endUserId: 'u1', platform: 'ios', token: apnsToken('other') });
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      const mine = await register('u1', 't1');
      expect((await send({ templateSlug: 'welcome', targetUsers: ['u1'] })).body).toEqual({ messageCount: 1 });
      expect(deviceIds((await queued())[0])).toEqual([mine]);
    });

    test('switching the Live release switches the template used', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome, { slug: 'old', title: 'Old', body: '' }] });
      await h.admin('POST', RELEASES, { version: 2, status: 'Testing', templates: [{ ...welcome, title: 'Welcome back, {{name}}' }] });
      await register('u1', 't1');
      await send({ templateSlug: 'welcome', variables: { name: 'Ada' } });
      await h.admin('PATCH', `${RELEASES}/2`, { status: 'Live' });
      await send({ templateSlug: 'welcome', variables: { name: 'Ada' } });
      expect((await queued()).map((m) => [m.content.releaseVersion, m.content.title])).toEqual([
        [1, 'Hi Ada'],
        [2, 'Welcome back, Ada'],
      ]);
      const gone = await send({ templateSlug: 'old' });
      expect(gone.body).toEqual({ title: 'Not Found', status: 404, detail: 'notification template not found', slug: 'old', releaseVersion: 2 });
      await h.admin('PATCH', `${RELEASES}/1`, { status: 'Live' });
      expect((await send({ templateSlug: 'old' })).body).toEqual({ messageCount: 1 });
    });

    test('a rendered payload over 4096 bytes is refused and nothing is queued', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [{ slug: 'long', title: 'T', body: '{{text}}' }] });
      await register('u1', 't1');
      const res = await send({ templateSlug: 'long', variables: { text: 'x'.repeat(4100) } });
      expect(res.body).toEqual({ title: 'Bad Request', status: 400, detail: 'payload exceeds 4096 bytes' });
      expect((await queued())).toEqual([]);
      expect((await send({ templateSlug: 'long', variables: { text: 'x'.repeat(3900) } })).body).toEqual({ messageCount: 1 });
    });
  });

  describe('test sends to testers', () => {
    async function testers() {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      await h.admin('POST', RELEASES, { version: 2, status: 'Testing', templates: [{ ...welcome, title: 'Beta {{name}}' }] });
      const ids = {
        t1: await register('tester-1', 't1', { tester: true }),
        t2: await register('tester-2', 't2'),
        u1: await register('user-1', 't3'),
      };
      const marked = await h.admin('PATCH', '/api/admin/apps/a1/end-users/tester-2', { tester: true });
      expect(marked.status).toBe(200);
      return ids;
    }

    test('a Testing release goes only to the devices of testers', async () => {
      const ids = await testers();
      const res = await send({ templateSlug: 'welcome', variables: { name: 'Ada' }, testReleaseVersion: 2 });
      expect(res.body).toEqual({ messageCount: 2 });
      const [message] = (await queued());
      expect(message!.content).toMatchObject({ releaseVersion: 2, title: 'Beta Ada' });
      expect(deviceIds(message)).toEqual([ids.t1, ids.t2].sort());
    });

    test('with targetUsers, a test send goes to the testers among them', async () => {
      const ids = await testers();
      const res = await send({ templateSlug: 'welcome', targetUsers: ['tester-1', 'user-1'], testReleaseVersion: 2 });
      expect(res.body).toEqual({ messageCount: 1 });
      expect(deviceIds((await queued())[0])).toEqual([ids.t1]);
      expect((await send({ templateSlug: 'welcome', targetUsers: ['user-1'], testReleaseVersion: 2 })).body).toEqual({ messageCount: 0 });
    });

    test('an end user no longer marked as a tester gets no test sends', async () => {
      const ids = await testers();
      await h.admin('PATCH', '/api/admin/apps/a1/end-users/tester-2', { tester: false });
      expect((await send({ templateSlug: 'welcome', testReleaseVersion: 2 })).body).toEqual({ messageCount: 1 });
      expect(deviceIds((await queued())[0])).toEqual([ids.t1]);
    });

    test('an unknown test release is 404, one not in Testing is 422', async () => {
      await testers();
      expect((await send({ templateSlug: 'welcome', testReleaseVersion: 9 })).body).toEqual({ title: 'Not Found', status: 404, detail: 'release not found' });
      await h.admin('POST', RELEASES, { version: 3, templates: [welcome] });
      for (const version of [1, 3]) {
        const res = await send({ templateSlug: 'welcome', testReleaseVersion: version });
        expect(res.body).toEqual({ title: 'Unprocessable Entity', status: 422, detail: 'release is not in Testing status' });
      }
      const missing = await send({ templateSlug: 'nope', testReleaseVersion: 2 });
      expect(missing.body.detail).toBe('notification template not found');
      expect((await queued())).toEqual([]);
    });

    test('a test send works while the app has no Live release', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Testing', templates: [welcome] });
      await register('tester-1', 't1', { tester: true });
      expect((await send({ templateSlug: 'welcome', testReleaseVersion: 1 })).body).toEqual({ messageCount: 1 });
    });
  });

  describe('send errors', () => {
    test('without the header the answer is 401 naming it, even with a bad body; a wrong key is 401 too', async () => {
      await setup();
      const missing = await h.request('POST', SEND, { body: { nonsense: true } });
      expect(missing.body).toEqual({ title: 'Unauthorized', status: 401, detail: 'X-Service-Key header is required' });
      const wrong = await h.request('POST', SEND, { body: { templateSlug: 'welcome' }, headers: { 'x-service-key': 'sk_wrong' } });
      expect(wrong.body).toMatchObject({ title: 'Unauthorized', status: 401, detail: 'invalid service key', appId: 'a1' });
    });

    test('an app without a Live release answers 422', async () => {
      await setup();
      await register('u1', 't1');
      const none = await send({ templateSlug: 'welcome' });
      expect(none.body).toEqual({ title: 'Unprocessable Entity', status: 422, detail: 'app has no live release' });
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      await h.admin('PATCH', `${RELEASES}/1`, { status: 'Archived' });
      expect((await send({ templateSlug: 'welcome' })).body.detail).toBe('app has no live release');
      expect((await queued())).toEqual([]);
    });

    test('an unknown template slug answers 404', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      await register('u1', 't1');
      const res = await send({ templateSlug: 'Welcome' });
      // The spec's detail word for word; the slug as sent and the release searched beside it.
      expect(res.body).toEqual({ title: 'Not Found', status: 404, detail: 'notification template not found', slug: 'Welcome', releaseVersion: 1 });
      const long = await send({ templateSlug: 'w'.repeat(1000) });
      expect(long.body.slug).toBe(`${'w'.repeat(200)}…`);
    });

    test('bad fields are named', async () => {
      await setup();
      await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates: [welcome] });
      const cases: [unknown, string][] = [
        [{}, 'templateSlug is required'],
        [{ templateSlug: '' }, 'templateSlug must not be empty'],
        [{ templateSlug: 'welcome', variables: { name: 5 } }, 'variables.name must be a string'],
        [{ templateSlug: 'welcome', variables: ['a'] }, 'variables must be an object'],
        [{ templateSlug: 'welcome', targetUsers: [] }, 'targetUsers must have at least 1 item'],
        [{ templateSlug: 'welcome', targetUsers: 'u1' }, 'targetUsers must be an array'],
        [{ templateSlug: 'welcome', targetUsers: ['u1', 2] }, 'targetUsers.1 must be a string'],
        [{ templateSlug: 'welcome', testReleaseVersion: '2' }, 'testReleaseVersion must be an integer'],
        [{ templateSlug: 'welcome', testReleaseVersion: 0 }, 'testReleaseVersion must be at least 1'],
        [{ templateSlug: 'welcome', extra: 1 }, 'extra is not a known field'],
      ];
      for (const [body, detail] of cases) {
        const res = await send(body);
        expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
      }
    });
  });
});
