import { afterEach, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { startWebPushStandin, type WebPushStandin } from '../../test-support/webpush-standin';

let served: ServedApp | undefined;
let push: WebPushStandin | undefined;
afterEach(async () => {
  await served?.close();
  await push?.close();
  served = push = undefined;
});

const register = (body: unknown) =>
  fetch(`${served!.server.url}/api/apps/shop/devices`, {
    method: 'POST',
    headers: { 'x-service-key': 'sk_shop', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

describe('web devices through a served process', () => {
  test('a browser subscription registers; the same endpoint again updates it; the record shows the origin, never the keys', async () => {
    push = await startWebPushStandin();
    // The stand-in listens on loopback http: allowed since spawnServer sets allow_private_endpoints.
    served = await serveApp({ app: 'shop', secret: 'sk_shop' });
    const subscription = push.subscribe();
    const first = await register({ endUserId: 'u1', platform: 'web', subscription, locale: 'de-AT' });
    expect(first.status).toBe(200);
    expect(first.body.device).toMatchObject({ endUserId: 'u1', platform: 'web', endpointOrigin: new URL(push.url).origin, locale: 'de-AT', valid: true });
    const text = JSON.stringify(first.body);
    for (const secret of [subscription.endpoint, subscription.keys.p256dh, subscription.keys.auth]) expect(text).not.toContain(secret);

    const again = await register({ endUserId: 'u2', platform: 'web', subscription });
    expect(again.body.device).toMatchObject({ id: first.body.device.id, endUserId: 'u2' });

    const db = new Database(join(served.dir, 'i.db'), { readonly: true });
    const rows = db.query("SELECT value, secret_sealed AS sealed FROM tokens WHERE kind = 'webpush_subscription'").all() as { value: string; sealed: string }[];
    db.close();
    expect(rows.map((r) => r.value)).toEqual([subscription.endpoint]);
    expect(rows[0]!.sealed).toStartWith('v1.');
    expect(rows[0]!.sealed).not.toContain(subscription.keys.auth);
  });

  test('a hostile or malformed subscription is a 400 naming the field', async () => {
    served = await serveApp({ app: 'shop', secret: 'sk_shop', env: { ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'false' } });
    const good = { endpoint: 'https://push.example.com/s/1', expirationTime: null, keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'AAAAAAAAAAAAAAAAAAAAAA' } };
    const p256dh = (await startWebPushStandin().then(async (s) => {
      const key = s.subscribe().keys.p256dh;
      await s.close();
      return key;
    }));
    const valid = { ...good, keys: { ...good.keys, p256dh } };
    const detail = async (body: unknown) => {
      const res = await register(body);
      expect(res.status).toBe(400);
      return res.body.detail as string;
    };
    const web = (subscription: unknown) => ({ endUserId: 'u1', platform: 'web', subscription });
    expect(await detail({ endUserId: 'u1', platform: 'web' })).toBe('subscription is required for platform web');
    expect(await detail({ ...web(valid), token: 'x' })).toStartWith('token is not for platform web');
    expect(await detail({ endUserId: 'u1', platform: 'android' })).toBe('token is required');
    expect(await detail({ endUserId: 'u1', platform: 'android', token: 'abc', subscription: valid })).toBe('subscription is only for platform web');
    expect(await detail(web({ ...valid, endpoint: 'http://push.example.com/s/1' }))).toStartWith('subscription.endpoint must be an https URL');
    expect(await detail(web({ ...valid, endpoint: 'https://127.0.0.1/s/1' }))).toStartWith('subscription.endpoint must not be a loopback address');
    expect(await detail(web({ ...valid, endpoint: 'https://10.0.0.8/s/1' }))).toStartWith('subscription.endpoint');
    expect(await detail(web({ ...valid, keys: { ...valid.keys, p256dh: 'AAAA' } }))).toBe('subscription.keys.p256dh must be the base64url of a 65-byte uncompressed P-256 point');
    expect(await detail(web(good))).toBe('subscription.keys.p256dh must be the base64url of a 65-byte uncompressed P-256 point');
    expect(await detail(web({ ...valid, keys: { ...valid.keys, auth: 'AAAA' } }))).toBe('subscription.keys.auth must be the base64url of 16 bytes');
    expect(await detail(web('nope'))).toBe('subscription must be an object, as PushSubscription.toJSON() gives it');
  });
});
