import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../../context';
import { apnsToken } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness, type Harness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { deliveryHistoryRepository } from './delivery-history.repository';

/*
 * The delivery-history repository's one implementation (delivery-history.ts) on each database,
 * through the admin API: every filter, including the fragments that differ per database (the
 * reason's substring match, the template read from a message's content, SQLite's index hint).
 */
forEachDatabase('delivery history', (database) => {
  let h: Harness<AppContext> | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const register = async (endUserId: string, platform: 'ios' | 'android', label: string): Promise<string> => {
    const token = platform === 'ios' ? apnsToken(label) : label;
    const res = await h!.service('a1', 'POST', '/api/apps/a1/devices', { endUserId, platform, token });
    expect(res.status).toBe(200);
    return res.body.device.id;
  };
  const found = async (query: string) => {
    const res = await h!.admin('GET', `/api/admin/apps/a1/deliveries?${query}`);
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    return { total: res.body.total, devices: res.body.deliveries.map((d: { deviceId: string }) => d.deviceId) };
  };

  test('search by every filter, one delivery with its ledger entry, and the first id', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await h.createApp({ id: 'a2' });
    const welcome = { slug: 'welcome', title: 'Hi', body: 'there' };
    expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [welcome] })).status).toBeLessThan(300);
    const iphone = await register('ada', 'ios', 'iphone');
    const pixel = await register('bob', 'android', 'pixel-token');
    expect((await h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'welcome' })).status).toBe(200);
    h.clock.advance(60_000);
    expect((await h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'welcome', targetUsers: ['bob'] })).status).toBe(200);

    const all = await found('');
    expect({ total: all.total, newest: all.devices[0] }).toEqual({ total: 3, newest: pixel });
    expect(await found('endUserId=ada')).toEqual({ total: 1, devices: [iphone] });
    expect(await found(`deviceId=${pixel}`)).toEqual({ total: 2, devices: [pixel, pixel] });
    expect((await found('templateSlug=welcome')).total).toBe(3);
    expect((await found('templateSlug=other')).total).toBe(0);
    expect((await found('kind=notification&endUserId=bob')).total).toBe(2);
    expect((await found('kind=la_start')).total).toBe(0);
    expect((await found('status=pending')).total).toBe(3);
    const later = new Date(h.clock.now() - 30_000).toISOString();
    expect(await found(`since=${later}`)).toEqual({ total: 1, devices: [pixel] });
    expect((await found(`until=${later}`)).total).toBe(2);
    expect((await found('endUserId=nobody')).total).toBe(0);

    // The reason text, case-insensitive, with % and _ taken literally.
    await testRows(h.ctx, `UPDATE deliveries SET status = 'failed', reason = 'Token refused: BadDeviceToken' WHERE device_id = ?`, [iphone]);
    expect(await found('reason=baddevice')).toEqual({ total: 1, devices: [iphone] });
    expect((await found('reason=%25')).total).toBe(0);
    expect((await found('reason=_')).total).toBe(0);
    expect((await found('status=failed&endUserId=ada')).total).toBe(1);

    // A message stored before messages had a template column: the template is read from its content.
    await testRows(h.ctx, 'UPDATE messages SET template_slug = NULL');
    const id = (await testRows<{ id: number }>(h.ctx, 'SELECT id FROM deliveries WHERE device_id = ?', [iphone]))[0]!.id;
    const one = await h.admin('GET', `/api/admin/apps/a1/deliveries/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id, deviceId: iphone, endUserId: 'ada', templateSlug: 'welcome', kind: 'notification', status: 'failed', earlierAttempts: [] });
    expect(one.body.token).toMatchObject({ id: one.body.tokenId, kind: 'apns_device', state: 'active' });
    expect((await h.admin('GET', `/api/admin/apps/a2/deliveries/${id}`)).status).toBe(404);

    const firstId = (await testRows<{ n: number }>(h.ctx, 'SELECT min(id) AS n FROM deliveries'))[0]!.n;
    expect(await deliveryHistoryRepository(h.ctx.db.sql).firstId('a1')).toBe(firstId);
    expect(await deliveryHistoryRepository(h.ctx.db.sql).firstId('a2')).toBeUndefined();
  });
});
