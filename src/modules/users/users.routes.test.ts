import { afterEach, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { apnsToken } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { endUsersRepository } from './end-users.repository';

/*
 * End users as a resource (issue 38) through app.handle on each database: tags by PUT and PATCH
 * with their limits, audiences on the send path and their count, and erasure down to the rows.
 */
forEachDatabase('end users', (database) => {
  let h: Harness<AppContext> | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const setUp = async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1', plan: 'pro' });
    const welcome = { slug: 'welcome', title: 'Hi', body: 'there' };
    expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [welcome] })).status).toBeLessThan(300);
    return h;
  };
  const call = (method: string, path: string, body?: unknown) => h!.service('a1', method, `/api/apps/a1${path}`, body);
  const register = async (endUserId: string, platform: 'ios' | 'android', label: string, extra: Record<string, unknown> = {}): Promise<string> => {
    const token = platform === 'ios' ? apnsToken(label) : label;
    const res = await call('POST', '/devices', { endUserId, platform, token, ...extra });
    expect(res.status).toBe(200);
    return res.body.device.id;
  };
  const tag = async (endUserId: string, tags: Record<string, string>) => expect((await call('PUT', `/users/${endUserId}`, { tags })).status).toBe(200);
  /** The devices a send queued deliveries for. */
  const sentTo = async (messageId: string) =>
    (
      await testRows<{ deviceId: string }>(
        h!.ctx,
        'SELECT d.device_id AS "deviceId" FROM deliveries d JOIN notification_messages n ON n.message_id = d.message_id WHERE n.public_id = $1 ORDER BY d.device_id',
        [messageId],
      )
    ).map((r) => r.deviceId);

  test('PUT replaces the tags (creating the end user), PATCH merges and removes, GET shows tags and devices', async () => {
    await setUp();
    const put = await call('PUT', '/users/ada', { tags: { plan: 'gold', 'geo:country': 'DE', 'a.b_c-d': 'x' } });
    expect(put.body).toEqual({ endUserId: 'ada', tags: { 'a.b_c-d': 'x', 'geo:country': 'DE', plan: 'gold' }, quietHours: null, frequencyCap: null, devices: [] });
    expect((await call('PUT', '/users/ada', { tags: { plan: 'silver' } })).body.tags).toEqual({ plan: 'silver' });
    const patched = await call('PATCH', '/users/ada', { tags: { country: 'FR', plan: null } });
    expect(patched.body.tags).toEqual({ country: 'FR' });
    const iphone = await register('ada', 'ios', 'ada-iphone');
    const got = await call('GET', '/users/ada');
    expect(got.status).toBe(200);
    expect(got.body.devices).toEqual([expect.objectContaining({ id: iphone, endUserId: 'ada', platform: 'ios', valid: true })]);
    // Known through a device only: an end user with no tags yet.
    await register('bob', 'android', 'bob-pixel');
    expect((await call('GET', '/users/bob')).body.tags).toEqual({});
    expect((await call('GET', '/users/nobody')).body).toEqual({ title: 'Not Found', status: 404, detail: 'end user not found' });
    expect((await h!.request('GET', '/api/apps/a1/users/ada')).status).toBe(401);
  });

  test('tag limits answer 400 naming the breach and change nothing', async () => {
    await setUp();
    await tag('ada', { plan: 'gold' });
    const refused = async (method: string, tags: Record<string, unknown>) => {
      const res = await call(method, '/users/ada', { tags });
      expect(res.status).toBe(400);
      return res.body.detail;
    };
    expect(await refused('PUT', { 'pl an': 'x' })).toBe('tag key "pl an" must be 1 to 64 letters, digits, _, -, . or :');
    expect(await refused('PATCH', { '': 'x' })).toBe('tag key "" must be 1 to 64 letters, digits, _, -, . or :');
    expect(await refused('PUT', { ['k'.repeat(65)]: 'x' })).toStartWith('tag key "kkkk');
    expect(await refused('PUT', { bio: 'x'.repeat(257) })).toBe('tag "bio" has a value of 257 characters: at most 256');
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    expect(await refused('PUT', many)).toBe('an end user has at most 64 tags: this would make 65');
    // PATCH counts what the user already has: 63 new keys beside plan make 64, one more 65.
    const more = Object.fromEntries(Array.from({ length: 63 }, (_, i) => [`k${i}`, 'v']));
    expect((await call('PATCH', '/users/ada', { tags: more })).status).toBe(200);
    expect(await refused('PATCH', { extra: 'v' })).toBe('an end user has at most 64 tags: this would make 65');
    expect((await call('PATCH', '/users/ada', { tags: { extra: 'v', k0: null } })).status).toBe(200);
    expect((await call('PUT', '/users/ada', { tags: { plan: 1 } })).status).toBe(400);
    expect((await call('PUT', `/users/${'u'.repeat(257)}`, { tags: {} })).body.detail).toBe('endUserId must be at most 256 characters');
    expect(Object.keys((await call('GET', '/users/ada')).body.tags)).toHaveLength(64);
  });

  test('a send to an audience queues exactly the matching devices; its count agrees; with targetUsers it is refused', async () => {
    await setUp();
    const ada = await register('ada', 'ios', 'ada-iphone');
    await register('ada', 'android', 'ada-pixel');
    const bob = await register('bob', 'ios', 'bob-iphone');
    await register('cy', 'ios', 'cy-iphone');
    await register('dan', 'android', 'dan-pixel');
    await register('eve', 'ios', 'eve-iphone');
    await tag('ada', { plan: 'gold', country: 'DE' });
    await tag('bob', { plan: 'platinum' });
    await tag('cy', { plan: 'free' });
    await tag('dan', { plan: 'gold' });
    const audience = { tags: { plan: ['gold', 'platinum'] }, platform: 'ios' };
    const sent = await call('POST', '/notifications/send', { templateSlug: 'welcome', audience });
    expect(sent.body.messageCount).toBe(2);
    expect(await sentTo(sent.body.messageId)).toEqual([ada, bob].sort());
    expect((await call('POST', '/notifications/audience-count', { audience })).body).toEqual({ devices: 2, users: 2 });
    // Every condition must hold: a single value and a second key.
    expect((await call('POST', '/notifications/audience-count', { audience: { tags: { plan: 'gold', country: 'DE' } } })).body).toEqual({ devices: 2, users: 1 });
    expect((await call('POST', '/notifications/audience-count', { audience: { platform: 'android' } })).body).toEqual({ devices: 2, users: 2 });
    expect((await call('POST', '/notifications/audience-count', { audience: { tags: { plan: 'none' } } })).body).toEqual({ devices: 0, users: 0 });
    const nobody = await call('POST', '/notifications/send', { templateSlug: 'welcome', audience: { tags: { plan: 'none' } } });
    expect(nobody.body).toEqual({ messageCount: 0, messageId: null });

    const both = await call('POST', '/notifications/send', { templateSlug: 'welcome', audience, targetUsers: ['ada'] });
    expect(both.body).toEqual({ title: 'Bad Request', status: 400, detail: 'audience and targetUsers cannot be given together' });
    const start = { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '0' } };
    expect((await call('POST', '/live-activities', { ...start, audience, targetUsers: ['ada'] })).body.detail).toBe('audience and targetUsers cannot be given together');
    const badKey = await call('POST', '/notifications/audience-count', { audience: { tags: { 'plan!': 'gold' } } });
    expect(badKey.body.detail).toBe('audience tag key "plan!" must be 1 to 64 letters, digits, _, -, . or :');
    expect((await call('POST', '/notifications/send', { templateSlug: 'welcome', audience: { platform: 'windows' } })).status).toBe(400);

    // A Live Activity start to the audience: one activity per matching end user.
    const started = await call('POST', '/live-activities', { ...start, audience: { tags: { plan: 'gold' } } });
    expect(started.status).toBe(200);
    expect(started.body.activities.map((a: { endUserId: string }) => a.endUserId).sort()).toEqual(['ada', 'dan']);
  });

  test('locales match the language of a device locale or its full tag', async () => {
    await setUp();
    const at = await register('ada', 'ios', 'ada-iphone', { locale: 'de-AT' });
    const de = await register('bob', 'android', 'bob-pixel', { locale: 'de' });
    const br = await register('cy', 'ios', 'cy-iphone', { locale: 'pt-BR' });
    await register('dan', 'ios', 'dan-iphone', { locale: 'pt-PT' });
    await register('eve', 'ios', 'eve-iphone');
    const send = async (audience: Record<string, unknown>) => {
      const sent = await call('POST', '/notifications/send', { templateSlug: 'welcome', audience });
      return sent.body.messageId === null ? [] : sentTo(sent.body.messageId);
    };
    expect(await send({ locales: ['de'] })).toEqual([at, de].sort());
    // Any form of a tag: written canonical on both sides.
    expect(await send({ locales: ['PT-br', 'de-at'] })).toEqual([at, br].sort());
    expect(await send({ locales: ['de'], platform: 'ios' })).toEqual([at]);
    expect(await send({ locales: ['fr'] })).toEqual([]);
    const bad = await call('POST', '/notifications/audience-count', { audience: { locales: ['en_US'] } });
    expect(bad.body).toEqual({ title: 'Bad Request', status: 400, detail: 'audience locale "en_US" is not a BCP 47 language tag' });
  });

  test('a test send to an audience reaches only its testers', async () => {
    await setUp();
    const tester = await register('tess', 'ios', 'tess-iphone', { tester: true });
    await register('ada', 'ios', 'ada-iphone');
    await tag('tess', { plan: 'gold' });
    await tag('ada', { plan: 'gold' });
    expect((await h!.admin('POST', '/api/admin/apps/a1/releases', { version: 2, status: 'Testing', templates: [{ slug: 'welcome', title: 'New', body: 'x' }] })).status).toBeLessThan(300);
    const sent = await call('POST', '/notifications/send', { templateSlug: 'welcome', testReleaseVersion: 2, audience: { tags: { plan: 'gold' } } });
    expect(await sentTo(sent.body.messageId)).toEqual([tester]);
  });

  describe('erase', () => {
    const rowsOf = async (endUserId: string) => {
      const count = async (text: string) => (await testRows<{ n: number }>(h!.ctx, text, [endUserId])).map((r) => Number(r.n))[0];
      return {
        endUsers: await count("SELECT count(*) AS n FROM end_users WHERE app_id = 'a1' AND id = $1"),
        tags: await count("SELECT count(*) AS n FROM end_user_tags WHERE app_id = 'a1' AND end_user_id = $1"),
        devices: await count("SELECT count(*) AS n FROM devices WHERE app_id = 'a1' AND end_user_id = $1"),
        activities: await count("SELECT count(*) AS n FROM activities WHERE app_id = 'a1' AND end_user_id = $1"),
      };
    };
    const none = { endUsers: 0, tags: 0, devices: 0, activities: 0 };

    test('removes devices, tokens, tags, tester flag and activities; the active activity gets its end; later sends queue nothing', async () => {
      await setUp();
      const pixel = await register('fay', 'android', 'fay-pixel', { tester: true });
      const iphone = await register('fay', 'ios', 'fay-iphone', { pushToStartToken: apnsToken('fay-pts') });
      await register('gus', 'ios', 'gus-iphone');
      await tag('fay', { plan: 'gold', city: 'Berlin' });
      await tag('gus', { plan: 'gold' });
      const start = { templateSlug: 'progress-bar', attributes: { label: 'x' }, contentState: { progress: '0' } };
      const old = (await call('POST', '/live-activities', { ...start, targetUsers: ['fay'] })).body.activities[0].id;
      expect((await call('DELETE', `/live-activities/${old}`)).status).toBe(200);
      // Its start and end went (this harness runs no delivery worker).
      await testRows(h!.ctx, `UPDATE deliveries SET status = 'delivered' WHERE activity_id = $1`, [old]);
      const active = (await call('POST', '/live-activities', { ...start, targetUsers: ['fay'] })).body.activities[0].id;
      const sent = await call('POST', '/notifications/send', { templateSlug: 'welcome', targetUsers: ['fay', 'gus'] });
      expect(sent.body.messageCount).toBe(3);

      const erased = await call('DELETE', '/users/fay');
      expect(erased.body).toEqual({ endUserId: 'fay', removed: { devices: 2, tokens: 3, tags: 2, liveActivities: 2, tester: true } });
      expect(await rowsOf('fay')).toEqual(none);
      // The active activity was ended, its end queued to both devices (they wait, anonymous, for it).
      const ends = await testRows<{ deviceId: string; status: string }>(
        h!.ctx,
        `SELECT d.device_id AS "deviceId", d.status FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.kind = 'la_end' AND d.activity_id = $1 ORDER BY d.device_id`,
        [active],
      );
      expect(ends.map((e) => e.deviceId).sort()).toEqual([iphone, pixel].sort());
      const parked = await testRows<{ id: string; endUserId: string }>(h!.ctx, `SELECT id, end_user_id AS "endUserId" FROM devices WHERE id IN ($1, $2)`, [iphone, pixel]);
      expect(parked.map((d) => d.endUserId)).toEqual(['', '']);
      const activity = await testRows<{ attributes: string; state: string }>(h!.ctx, 'SELECT attributes, state FROM activities WHERE id = $1', [active]);
      expect(activity).toEqual([{ attributes: '{}', state: 'Ended' }]);
      expect(await testRows(h!.ctx, 'SELECT id FROM activities WHERE id = $1', [old])).toEqual([]);
      // The notification deliveries to fay's devices: counted still, dropped, without the device.
      const deliveries = await testRows<{ deviceId: string; status: string }>(
        h!.ctx,
        'SELECT d.device_id AS "deviceId", d.status FROM deliveries d JOIN notification_messages n ON n.message_id = d.message_id WHERE n.public_id = $1 ORDER BY d.device_id',
        [sent.body.messageId],
      );
      expect(deliveries.map((d) => [d.deviceId === '' ? 'erased' : 'gus', d.status])).toEqual([
        ['erased', 'dropped'],
        ['erased', 'dropped'],
        ['gus', 'pending'],
      ]);

      // Nothing reaches them any more: by id, to everyone, to an audience, a start.
      expect((await call('POST', '/notifications/send', { templateSlug: 'welcome', targetUsers: ['fay'] })).body.messageCount).toBe(0);
      expect((await call('POST', '/notifications/send', { templateSlug: 'welcome' })).body.messageCount).toBe(1);
      expect((await call('POST', '/notifications/audience-count', { audience: {} })).body).toEqual({ devices: 1, users: 1 });
      expect((await call('POST', '/live-activities', { ...start, targetUsers: ['fay'] })).body.activityCount).toBe(0);
      expect((await call('GET', '/users/fay')).status).toBe(404);
      expect((await call('DELETE', '/users/fay')).body.detail).toBe('end user not found');

      // Once the end pushes went, the retention job removes what waited for them.
      await testRows(h!.ctx, `UPDATE deliveries SET status = 'delivered' WHERE activity_id = $1`, [active]);
      expect(await h!.ctx.db.write((tx) => endUsersRepository(tx).pruneErased())).toBe(3);
      expect(await testRows(h!.ctx, 'SELECT id FROM devices WHERE id IN ($1, $2)', [iphone, pixel])).toEqual([]);
      expect(await testRows(h!.ctx, 'SELECT id FROM tokens WHERE device_id IN ($1, $2)', [iphone, pixel])).toEqual([]);
      expect(await testRows(h!.ctx, 'SELECT id FROM activities WHERE id = $1', [active])).toEqual([]);
      expect(await h!.ctx.db.write((tx) => endUsersRepository(tx).pruneErased())).toBe(0);
    });

    test('an end user with tags only is erased; another app is untouched', async () => {
      await setUp();
      await h!.createApp({ id: 'a2' });
      await tag('hal', { plan: 'gold' });
      expect((await h!.service('a2', 'PUT', '/api/apps/a2/users/hal', { tags: { plan: 'gold' } })).status).toBe(200);
      expect((await call('DELETE', '/users/hal')).body.removed).toEqual({ devices: 0, tokens: 0, tags: 1, liveActivities: 0, tester: false });
      expect((await h!.service('a2', 'GET', '/api/apps/a2/users/hal', undefined)).body.tags).toEqual({ plan: 'gold' });
    });
  });
});
