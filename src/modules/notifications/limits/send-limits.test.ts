import { afterEach, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { createDeliveryEngine, type DeliveryEngine } from '../../delivery/delivery.engine';

/**
 * Issue 48 points 1 and 2 in process, with the harness's fake clock (2026-01-15T12:00:00Z): quiet
 * hours hold a plain notification until the window ends in the device's zone (released by the
 * delivery engine's quiet-hours consumer), frequency caps drop what would exceed an end user's cap.
 * The served-process and several-instance tests are in limits.e2e.test.ts and limits.cluster.e2e.test.ts.
 */
forEachDatabase('quiet hours and frequency caps', (database) => {
  let h: Harness<AppContext>;
  let engine: DeliveryEngine;
  afterEach(async () => {
    await engine?.stop();
    h?.close();
  });

  const NOW = Date.parse('2026-01-15T12:00:00Z');
  const templates = [
    { slug: 'promo', title: 'Sale', body: 'Everything half price' },
    { slug: 'code', title: 'Your code', body: '123456', interruptionLevel: 'time-sensitive' },
    { slug: 'short', title: 'Flash sale', body: 'One hour only', ttlSeconds: 3600 },
    { slug: 'sync', title: '', body: '', silent: true },
    { slug: 'hello', title: 'Hello', body: 'A sale', localizations: { de: { title: 'Hallo', body: 'Ein Angebot' } } },
  ];

  async function setup(settings: Record<string, unknown>) {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates })).status).toBe(201);
    const patched = await h.admin('PATCH', '/api/admin/apps/a1', settings);
    expect(patched.status).toBe(200);
    engine = createDeliveryEngine(h.ctx, { random: () => 0.5 });
  }
  async function register(endUserId: string, label: string, timeZone?: string, locale?: string): Promise<string> {
    const res = await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform: 'ios', token: apnsToken(label), ...(timeZone && { timeZone }), ...(locale && { locale }) });
    expect(res.status).toBe(200);
    return res.body.device.id;
  }
  const send = async (templateSlug: string) => {
    const res = await h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug });
    expect(res.status).toBe(200);
    return res.body.messageId as string;
  };
  const status = async (messageId: string) => (await h.service('a1', 'GET', `/api/apps/a1/notifications/${messageId}`)).body;
  const rows = (messageId: string) =>
    testRows<{ device_id: string; status: string; reason: string | null; next_attempt_at: number | string }>(
      h.ctx,
      // The message and its variants (one per language of a localized send).
      `SELECT d.device_id, d.status, d.reason, d.next_attempt_at FROM deliveries d
        WHERE d.message_id IN (SELECT message_id FROM notification_messages WHERE public_id = ?
                               UNION SELECT v.message_id FROM notification_message_variants v JOIN notification_messages n ON n.message_id = v.main_message_id WHERE n.public_id = ?)
        ORDER BY d.id`,
      [messageId, messageId],
    );
  const byDevice = async (messageId: string) => Object.fromEntries((await rows(messageId)).map((r) => [r.device_id, r.status]));
  const runAt = async (at: number) => {
    h.clock.set(at);
    await engine.drain();
  };

  describe('quiet hours', () => {
    test('a device inside its window (its own zone, else the default) is held until the window ends there; one in daytime and a time-sensitive one go at once', async () => {
      await setup({ quietHours: { start: '22:00', end: '07:00' }, defaultTimeZone: 'America/New_York' });
      // 12:00 UTC: 23:00 in Sydney (inside), 13:00 in Vienna (outside), 07:00 in New York (the end: outside).
      const sydney = await register('ada', 'sydney', 'Australia/Sydney');
      const vienna = await register('bob', 'vienna', 'Europe/Vienna');
      const noZone = await register('cy', 'nozone');
      const promo = await send('promo');
      const code = await send('code');
      const sync = await send('sync');
      await runAt(NOW);
      expect(await byDevice(promo)).toEqual({ [sydney]: 'held', [vienna]: 'delivered', [noZone]: 'delivered' });
      expect(await byDevice(code)).toEqual({ [sydney]: 'delivered', [vienna]: 'delivered', [noZone]: 'delivered' });
      expect(await byDevice(sync)).toEqual({ [sydney]: 'delivered', [vienna]: 'delivered', [noZone]: 'delivered' });
      const held = (await rows(promo)).find((r) => r.device_id === sydney)!;
      expect(held.reason).toBe('quiet hours until 07:00 (Australia/Sydney)');
      expect((await status(promo)).deliveries).toMatchObject({ total: 3, held: 1, sent: 2 });
      // 07:00 in Sydney (UTC+11 in January) is 20:00 UTC.
      await runAt(Date.parse('2026-01-15T19:59:59Z'));
      expect((await byDevice(promo))[sydney]).toBe('held');
      await runAt(Date.parse('2026-01-15T20:00:00Z'));
      expect((await byDevice(promo))[sydney]).toBe('delivered');
      expect((await status(promo)).deliveries).toMatchObject({ total: 3, held: 0, sent: 3 });
    });

    test('a window that does not cross midnight; in the default zone of a device without one', async () => {
      await setup({ quietHours: { start: '11:30', end: '12:30' } });
      const utc = await register('ada', 'utc');
      const promo = await send('promo');
      await runAt(NOW);
      expect(await byDevice(promo)).toEqual({ [utc]: 'held' });
      await runAt(Date.parse('2026-01-15T12:30:00Z'));
      expect(await byDevice(promo)).toEqual({ [utc]: 'delivered' });
    });

    test('its ttl still counts: expired while held, it is dropped with that reason', async () => {
      await setup({ quietHours: { start: '22:00', end: '07:00' } });
      const sydney = await register('ada', 'sydney', 'Australia/Sydney');
      const flash = await send('short');
      await runAt(NOW);
      expect(await byDevice(flash)).toEqual({ [sydney]: 'held' });
      // One hour later the notification expired, long before 07:00 in Sydney.
      await runAt(NOW + 3_600_000);
      expect(await rows(flash)).toMatchObject([{ status: 'dropped', reason: 'expired' }]);
      expect((await status(flash)).deliveries).toMatchObject({ held: 0, dropped: 1, sent: 0 });
    });

    test('a cancel drops the held ones; the window ending later sends nothing', async () => {
      await setup({ quietHours: { start: '22:00', end: '07:00' } });
      await register('ada', 'sydney', 'Australia/Sydney');
      const promo = await send('promo');
      const cancelled = await h.service('a1', 'DELETE', `/api/apps/a1/notifications/${promo}`);
      expect(cancelled.body).toEqual({ messageId: promo, cancelled: 1 });
      await runAt(Date.parse('2026-01-15T20:00:00Z'));
      expect(await rows(promo)).toMatchObject([{ status: 'dropped', reason: 'cancelled' }]);
    });

    test("an end user's own window replaces the app's; null gives the app's back", async () => {
      await setup({ quietHours: { start: '22:00', end: '07:00' } });
      const vienna = await register('bob', 'vienna', 'Europe/Vienna');
      const own = await h.service('a1', 'PATCH', '/api/apps/a1/users/bob', { quietHours: { start: '12:00', end: '14:00' } });
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ endUserId: 'bob', quietHours: { start: '12:00', end: '14:00' }, frequencyCap: null });
      const first = await send('promo');
      await runAt(NOW);
      expect(await byDevice(first)).toEqual({ [vienna]: 'held' });
      const back = await h.service('a1', 'PUT', '/api/apps/a1/users/bob', { quietHours: null });
      expect(back.body).toMatchObject({ quietHours: null, tags: {} });
      const second = await send('promo');
      await runAt(NOW);
      expect(await byDevice(second)).toEqual({ [vienna]: 'delivered' });
      // 14:00 in Vienna (UTC+1) is 13:00 UTC.
      await runAt(Date.parse('2026-01-15T13:00:00Z'));
      expect(await byDevice(first)).toEqual({ [vienna]: 'delivered' });
    });

    test('a malformed time is a 400 naming quietHours, from the admin API and the users API alike; null turns them off', async () => {
      await setup({});
      for (const [quietHours, field] of [
        [{ start: '25:00', end: '07:00' }, 'quietHours.start'],
        [{ start: '22:00', end: '7:00' }, 'quietHours.end'],
        [{ start: '22:00', end: '22:00' }, 'quietHours.start'],
      ] as const) {
        for (const res of [await h.admin('PATCH', '/api/admin/apps/a1', { quietHours }), await h.service('a1', 'PATCH', '/api/apps/a1/users/ada', { quietHours })]) {
          expect(res.status).toBe(400);
          expect(res.body.detail).toContain(field);
        }
      }
      const missing = await h.admin('PATCH', '/api/admin/apps/a1', { quietHours: { start: '22:00' } });
      expect(missing.status).toBe(400);
      expect(missing.body.detail).toContain('quietHours');
      expect((await h.admin('PATCH', '/api/admin/apps/a1', { quietHours: { start: '22:00', end: '07:00' } })).body.quietHours).toEqual({ start: '22:00', end: '07:00' });
      expect((await h.admin('PATCH', '/api/admin/apps/a1', { quietHours: null })).body.quietHours).toBeNull();
    });
  });

  describe('frequency caps', () => {
    test('under a cap of 2, three promotions and one time-sensitive code reach a person with two phones as two promotions and the code', async () => {
      await setup({ frequencyCap: { count: 2, perHours: 24 } });
      const phone = await register('ada', 'phone');
      const tablet = await register('ada', 'tablet');
      const other = await register('bob', 'other');
      const promos = [await send('promo'), await send('promo'), await send('promo')];
      const code = await send('code');
      await runAt(NOW);
      expect(await byDevice(promos[0]!)).toEqual({ [phone]: 'delivered', [tablet]: 'delivered', [other]: 'delivered' });
      expect(await byDevice(promos[1]!)).toEqual({ [phone]: 'delivered', [tablet]: 'delivered', [other]: 'delivered' });
      expect(await rows(promos[2]!)).toEqual([
        expect.objectContaining({ device_id: phone, status: 'dropped', reason: 'frequency cap' }),
        expect.objectContaining({ device_id: tablet, status: 'dropped', reason: 'frequency cap' }),
        expect.objectContaining({ device_id: other, status: 'dropped', reason: 'frequency cap' }),
      ]);
      expect(await byDevice(code)).toEqual({ [phone]: 'delivered', [tablet]: 'delivered', [other]: 'delivered' });
      expect((await status(promos[2]!)).deliveries).toMatchObject({ total: 3, dropped: 3, sent: 0 });
      // The window slides: 24 hours after the first, one more goes.
      h.clock.set(NOW + 24 * 3_600_000 + 1);
      const later = await send('promo');
      await runAt(NOW + 24 * 3_600_000 + 1);
      expect(await byDevice(later)).toEqual({ [phone]: 'delivered', [tablet]: 'delivered', [other]: 'delivered' });
    });

    test("an end user's own cap replaces the app's; silent pushes neither count nor are capped", async () => {
      await setup({});
      const phone = await register('ada', 'phone');
      const other = await register('bob', 'other');
      expect((await h.service('a1', 'PUT', '/api/apps/a1/users/ada', { tags: {}, frequencyCap: { count: 1, perHours: 1 } })).body.frequencyCap).toEqual({ count: 1, perHours: 1 });
      await send('sync');
      const first = await send('promo');
      await send('sync');
      const second = await send('promo');
      await runAt(NOW);
      expect(await byDevice(first)).toEqual({ [phone]: 'delivered', [other]: 'delivered' });
      expect(await byDevice(second)).toEqual({ [phone]: 'dropped', [other]: 'delivered' });
    });

    test('a localized send: a person whose phones read two languages is counted once, and each phone is held in its own zone', async () => {
      await setup({ frequencyCap: { count: 1, perHours: 24 }, quietHours: { start: '22:00', end: '07:00' } });
      const german = await register('ada', 'german', 'Australia/Sydney', 'de-AT');
      const english = await register('ada', 'english', 'Europe/Vienna', 'en-GB');
      const first = await send('hello');
      const second = await send('hello');
      await runAt(NOW);
      expect(await byDevice(first)).toEqual({ [german]: 'held', [english]: 'delivered' });
      expect((await status(first)).deliveries).toMatchObject({ total: 2, held: 1, sent: 1 });
      expect(await byDevice(second)).toEqual({ [german]: 'dropped', [english]: 'dropped' });
      await runAt(Date.parse('2026-01-15T20:00:00Z'));
      expect(await byDevice(first)).toEqual({ [german]: 'delivered', [english]: 'delivered' });
    });

    test('out of bounds is a 400 naming the field', async () => {
      await setup({});
      for (const [frequencyCap, field] of [
        [{ count: 0, perHours: 24 }, 'frequencyCap.count'],
        [{ count: 1001, perHours: 24 }, 'frequencyCap.count'],
        [{ count: 2.5, perHours: 24 }, 'frequencyCap.count'],
        [{ count: 2, perHours: 169 }, 'frequencyCap.perHours'],
        [{ count: 2, perHours: 0 }, 'frequencyCap.perHours'],
      ] as const) {
        for (const res of [await h.admin('PATCH', '/api/admin/apps/a1', { frequencyCap }), await h.service('a1', 'PUT', '/api/apps/a1/users/ada', { frequencyCap })]) {
          expect(res.status).toBe(400);
          expect(res.body.detail).toContain(field);
        }
      }
      expect((await h.admin('PATCH', '/api/admin/apps/a1', { frequencyCap: { count: 1000, perHours: 168 } })).body.frequencyCap).toEqual({ count: 1000, perHours: 168 });
    });
  });
});
