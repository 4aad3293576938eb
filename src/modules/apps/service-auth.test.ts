import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../test-support/harness';

// A refused X-Service-Key: `invalid service key` as before, with members that help with a typo in
// the path without telling an unauthenticated caller which app ids exist.
let h: Harness;
afterEach(() => h?.close());

const list = (appId: string, key: string) => h.request('GET', `/api/apps/${appId}/live-activities`, { headers: { 'x-service-key': key } });
/** The body with the app id it was sent for taken out: what would tell an unknown app from a known one. */
const withoutAppId = (body: Record<string, unknown>, appId: string) => JSON.parse(JSON.stringify(body).replaceAll(appId, '<appId>'));

describe('a refused X-Service-Key', () => {
  test('an unknown app and a wrong key answer the same 401, naming the app id sent and what to check', async () => {
    h = await createHarness();
    await h.createApp({ id: 'shop' });
    const unknownApp = await list('shp', 'sk_not_a_key');
    const wrongKey = await list('shop', 'sk_not_a_key');
    expect(unknownApp.status).toBe(401);
    expect(unknownApp.body).toEqual({
      title: 'Unauthorized',
      status: 401,
      detail: 'invalid service key',
      appId: 'shp',
      hint: 'either no app has the id shp or X-Service-Key is not its App Secret; the answer is the same for both, so that app ids cannot be probed',
    });
    expect(wrongKey.status).toBe(401);
    expect(withoutAppId(wrongKey.body, 'shop')).toEqual(withoutAppId(unknownApp.body, 'shp'));
  });

  test("another app's key names the app it belongs to, whatever the path names: a typo is seen at once, and nothing about other apps", async () => {
    h = await createHarness();
    const shop = await h.createApp({ id: 'shop' });
    await h.createApp({ id: 'shop-eu' });
    const typo = await list('shp', shop.appSecret);
    expect(typo.body).toEqual({
      title: 'Unauthorized',
      status: 401,
      detail: 'invalid service key',
      appId: 'shp',
      keyAppId: 'shop',
      hint: 'X-Service-Key is the App Secret of app shop, not of shp: check the app id in the path',
    });
    // On an app that exists (shop-eu) the answer is the same as on one that does not (shp).
    expect(withoutAppId((await list('shop-eu', shop.appSecret)).body, 'shop-eu')).toEqual(withoutAppId(typo.body, 'shp'));
    expect((await list('shop', shop.appSecret)).status).toBe(200);
  });

  test('a long app id is echoed cut to 200 characters', async () => {
    h = await createHarness();
    const res = await list('a'.repeat(500), 'sk_not_a_key');
    expect(res.body.appId).toBe(`${'a'.repeat(200)}…`);
  });

  test("each refusal, another app's key too, counts against the address: guessing stays throttled", async () => {
    h = await createHarness();
    const shop = await h.createApp({ id: 'shop' });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await list('shp', shop.appSecret)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.at(-1)).toBe(429);
  });
});
