import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../../test-support/harness';
import { apnsToken } from '../../../test-support/apns-standin';
import { testRows } from '../../../test-support/test-sql';
import { forEachDatabase } from '../../../test-support/databases';
import type { AppContext } from '../../../context';
import { richTemplate } from '../../../test-support/notification-fixtures';

forEachDatabase('notification sends with options', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const SEND = '/api/apps/a1/notifications/send';
  const RELEASES = '/api/admin/apps/a1/releases';

  async function setup(templates: unknown[] = [richTemplate]) {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await h.admin('POST', RELEASES, { version: 1, status: 'Live', templates });
  }

  async function register(endUserId: string, platform: 'ios' | 'android' = 'ios'): Promise<string> {
    const token = platform === 'ios' ? apnsToken(endUserId) : `fcm-${endUserId}`;
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform, token });
    return res.body.device.id;
  }

  const send = (body: unknown) => h.service('a1', 'POST', SEND, body);
  const contents = async () => (await testRows<{ content: string }>(h.ctx, 'SELECT content FROM messages ORDER BY id')).map((r) => JSON.parse(r.content));
  const deliveryCount = async () => (await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM deliveries'))[0]!.n;

  test('the template is rendered into the content with every field; the send answers the message id the content carries', async () => {
    await setup();
    await register('u1');
    const res = await send({ templateSlug: 'order', variables: { order: '7', state: 'shipped', shop: 'Acme' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messageCount: 1, messageId: expect.stringMatching(/^msg_/) });
    const [content] = await contents();
    expect(content).toEqual({
      type: 'notification',
      templateSlug: 'order',
      releaseVersion: 1,
      title: 'Order 7',
      body: 'Your order is shipped',
      messageId: res.body.messageId,
      data: { url: 'shop://orders/7', kind: 'order' },
      subtitle: 'From Acme',
      sound: 'chime.caf',
      badge: 3,
      image: 'https://img.example.com/7.png',
      threadId: 'orders',
      category: 'ORDER',
      interruptionLevel: 'time-sensitive',
      relevanceScore: 0.8,
      androidChannelId: 'orders',
      priority: 'high',
      collapseId: 'order-7',
      ttlSeconds: 3600,
      apnsExpiration: Math.floor(h.clock.now() / 1000) + 3600,
    });
  });

  test("a send's data merges over the template's (the send's wins); its badge, collapseId and ttlSeconds replace the template's", async () => {
    await setup();
    await register('u1');
    const res = await send({ templateSlug: 'order', variables: { order: '7' }, data: { kind: 'refund', extra: '1' }, badge: 0, collapseId: 'c', ttlSeconds: 0 });
    expect(res.status).toBe(200);
    const [content] = await contents();
    expect(content).toMatchObject({ data: { url: 'shop://orders/7', kind: 'refund', extra: '1' }, badge: 0, collapseId: 'c', ttlSeconds: 0, apnsExpiration: 0 });
  });

  test('without a ttl in the template or the send, FCM keeps the configured one and APNs gets no expiration, as before', async () => {
    await setup([{ slug: 'plain', title: 'T', body: 'B' }]);
    await register('u1');
    await send({ templateSlug: 'plain' });
    const [content] = await contents();
    expect(content.ttlSeconds).toBe(h.ctx.config.notifications.ttl_seconds);
    expect(content.apnsExpiration).toBeUndefined();
  });

  describe('an invalid send answers 400 naming what is wrong and queues nothing', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['a reserved data key', { data: { 'google.x': 'y' } }, 'data key google.x is reserved by FCM'],
      ['a data value not a string', { data: { n: 1 } }, 'data.n must be a string'],
      ['a negative badge', { badge: -1 }, 'badge must be at least 0'],
      ['a ttl over four weeks', { ttlSeconds: 2_419_201 }, 'ttlSeconds must be at most 2419200'],
      ['a collapse id over 64 bytes', { collapseId: 'é'.repeat(33) }, 'collapseId is 66 bytes once rendered; APNs allows at most 64'],
      ['a rendered collapse id over 64 bytes', { variables: { order: 'x'.repeat(60) } }, 'collapseId is 66 bytes once rendered; APNs allows at most 64'],
      ['an image not https once rendered', { variables: { order: '7', img: 'x' }, templateSlug: 'pic' }, 'image must be an https URL once rendered'],
      ['a badge for a silent template', { templateSlug: 'sync', badge: 1 }, 'badge cannot be sent with the silent template sync: a background push shows nothing'],
      ['data over the payload limit', { data: { big: 'x'.repeat(4000) } }, 'payload exceeds 4096 bytes: 4'],
    ];
    for (const [name, body, detail] of cases) {
      test(name, async () => {
        await setup([richTemplate, { slug: 'pic', title: 'T', body: 'B', image: '{{img}}' }, { slug: 'sync', title: '', body: '', silent: true }]);
        await register('u1');
        const res = await send({ templateSlug: 'order', ...body });
        expect(res.status).toBe(400);
        expect(res.body.detail.startsWith(detail)).toBe(true);
        expect(await contents()).toEqual([]);
        expect(await deliveryCount()).toBe(0);
      });
    }
  });

  describe('following a message', () => {
    test('the status names the template, release and time, and counts the queued deliveries per platform', async () => {
      await setup();
      await register('u1');
      await register('u2', 'android');
      await register('u3', 'android');
      const { messageId } = (await send({ templateSlug: 'order', variables: { order: '7' } })).body;
      const res = await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`);
      expect(res.status).toBe(200);
      const counts = (queued: number) => ({ total: queued, queued, held: 0, sending: 0, sent: 0, failed: 0, dropped: 0, superseded: 0 });
      expect(res.body).toEqual({
        messageId,
        templateSlug: 'order',
        releaseVersion: 1,
        createdAt: new Date(h.clock.now()).toISOString(),
        deliveries: counts(3),
        platforms: { ios: counts(1), android: counts(2), web: counts(0) },
        opened: 0,
        received: 0,
      });
    });

    test("an unknown id, and another app's message with this app's key, answer 404; another app's key on this app answers 401", async () => {
      await setup();
      await register('u1');
      const { messageId } = (await send({ templateSlug: 'order' })).body;
      await h.createApp({ id: 'a2' });
      const other = await h.service('a2', 'GET', `/api/apps/a2/notifications/${messageId}`);
      expect(other.body).toEqual({ title: 'Not Found', status: 404, detail: 'message not found' });
      expect((await h.service('a1', 'GET', '/api/apps/a1/notifications/msg_nothing')).status).toBe(404);
      expect((await h.service('a2', 'GET', `/api/apps/a1/notifications/${messageId}`)).status).toBe(401);
    });

    test('once retention has removed the message (its deliveries first), its id answers 404 and the public id goes with it', async () => {
      await setup();
      await register('u1');
      const { messageId } = (await send({ templateSlug: 'order' })).body;
      // What the retention job's statements do (outbox repositories: deleteDeliveries, then deleteMessages).
      await testRows(h.ctx, 'DELETE FROM deliveries');
      await testRows(h.ctx, 'DELETE FROM messages');
      expect((await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`)).status).toBe(404);
      expect(await testRows(h.ctx, 'SELECT public_id FROM notification_messages')).toEqual([]);
    });

    test('a send that queued nothing answers a null message id', async () => {
      await setup();
      expect((await send({ templateSlug: 'order' })).body).toEqual({ messageCount: 0, messageId: null });
    });
  });
});
