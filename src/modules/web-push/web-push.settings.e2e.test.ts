import { afterEach, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { importVapidKey } from '../delivery/providers/webpush/webpush.vapid';

let served: ServedApp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${served!.server.url}${path}`, {
    method,
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

describe('Web Push settings through a served process', () => {
  test('the first PUT makes a P-256 key, later ones keep it; the public key is open to pages; DELETE disables it', async () => {
    served = await serveApp({ app: 'shop', secret: 'sk_shop' });
    const publicKey = () => fetch(`${served!.server.url}/api/apps/shop/web-push/public-key`).then(async (r) => ({ status: r.status, body: await r.json() }));
    expect(await publicKey()).toEqual({ status: 404, body: { title: 'Not Found', status: 404, detail: 'the app has no Web Push' } });
    expect((await admin('GET', '/api/admin/apps/shop/web-push')).status).toBe(404);

    const first = await admin('PUT', '/api/admin/apps/shop/web-push', { subject: 'mailto:ops@example.com', defaultUrl: 'https://shop.example.com/' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ publicKey: expect.any(String), subject: 'mailto:ops@example.com', defaultUrl: 'https://shop.example.com/', expiryDays: 60 });
    const point = Buffer.from(first.body.publicKey, 'base64url');
    expect([point.length, point[0]]).toEqual([65, 4]);

    const second = await admin('PUT', '/api/admin/apps/shop/web-push', { subject: 'https://shop.example.com/contact', defaultUrl: 'https://shop.example.com/inbox', expiryDays: 30 });
    expect(second.body).toEqual({ publicKey: first.body.publicKey, subject: 'https://shop.example.com/contact', defaultUrl: 'https://shop.example.com/inbox', expiryDays: 30 });
    expect(await admin('GET', '/api/admin/apps/shop/web-push')).toEqual({ status: 200, body: second.body });
    expect(await publicKey()).toEqual({ status: 200, body: { publicKey: first.body.publicKey } });

    // The private key is sealed at rest: nothing of a PEM in the database file.
    const db = new Database(join(served.dir, 'i.db'), { readonly: true });
    const row = db.query('SELECT private_key_sealed AS sealed FROM web_push').get() as { sealed: string };
    db.close();
    expect(row.sealed).toStartWith('v1.');
    expect(row.sealed).not.toContain('PRIVATE KEY');

    expect(await admin('DELETE', '/api/admin/apps/shop/web-push')).toEqual({ status: 200, body: { success: true } });
    expect((await publicKey()).status).toBe(404);
    expect((await admin('PUT', '/api/admin/apps/nope/web-push', { subject: 'mailto:a@example.com', defaultUrl: 'https://example.com' })).status).toBe(404);
  });

  test('a bad subject or defaultUrl is a 400 naming it, and changes nothing', async () => {
    served = await serveApp({ app: 'shop', secret: 'sk_shop' });
    const put = (body: unknown) => admin('PUT', '/api/admin/apps/shop/web-push', body);
    const subject = 'subject must be a mailto: address or an https: URL, without spaces or angle brackets, not at localhost';
    for (const bad of ['ops@example.com', 'mailto:<ops@example.com>', 'https://localhost/contact', 'http://example.com'])
      expect(await put({ subject: bad, defaultUrl: 'https://example.com' })).toEqual({ status: 400, body: { title: 'Bad Request', status: 400, detail: subject } });
    expect((await put({ subject: 'mailto:ops@example.com', defaultUrl: 'http://example.com' })).body.detail).toBe('defaultUrl must be an https URL');
    expect((await put({ subject: 'mailto:ops@example.com', defaultUrl: 'https://example.com', expiryDays: 0 })).body.detail).toBe(
      'expiryDays must be a whole number of days from 1 to 3650',
    );
    expect((await admin('GET', '/api/admin/apps/shop/web-push')).status).toBe(404);
  });

  test('[apps.web_push] seeds the settings with the key of private_key_file; a bad key names its key', async () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'sec1' }).toString();
    served = await serveApp({
      app: 'shop',
      secret: 'sk_shop',
      more: '[apps.web_push]\nsubject = "mailto:ops@example.com"\ndefault_url = "https://shop.example.com/"\nprivate_key_file = "vapid.pem"\nexpiry_days = 14\n',
      files: { 'vapid.pem': pem },
    });
    expect((await admin('GET', '/api/admin/apps/shop/web-push')).body).toEqual({
      publicKey: importVapidKey(pem).publicKey,
      subject: 'mailto:ops@example.com',
      defaultUrl: 'https://shop.example.com/',
      expiryDays: 14,
    });
    await served.close();
    served = undefined;
    const refused = serveApp({
      app: 'shop',
      secret: 'sk_shop',
      more: '[apps.web_push]\nsubject = "mailto:ops@localhost"\ndefault_url = "https://shop.example.com/"\n',
    });
    await expect(refused).rejects.toThrow('web_push.subject must be a mailto: address');
  });
});
