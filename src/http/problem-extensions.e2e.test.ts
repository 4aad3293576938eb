import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { serveApp, type ServedApp } from '../test-support/served-app';

// Errors whose detail the spec fixes name the value that was wrong in extension members (RFC 9457),
// through a real served process, as a client reads them.
const KEY = 'sk_problem_members';
let served: ServedApp;
let url: string;
const admin = { authorization: 'Bearer t', 'content-type': 'application/json' };
const service = { 'x-service-key': KEY, 'content-type': 'application/json' };

beforeAll(async () => {
  served = await serveApp({ app: 'shop', secret: KEY });
  url = served.server.url;
}, 30_000);
afterAll(() => served?.close(), 30_000);

const post = (path: string, headers: Record<string, string>, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

describe('problem extension members', () => {
  test('a mistyped template slug: 400 invalid template slug, with the slug sent and the eight valid ones', async () => {
    const res = await post('/api/apps/shop/live-activities', service, { templateSlug: 'progres-bar', attributes: { label: 'Upload' }, contentState: { progress: '5' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'invalid template slug',
      templateSlug: 'progres-bar',
      validSlugs: ['status-tracker', 'metric-live', 'countdown', 'progress-bar', 'two-column', 'key-value-list', 'image-banner', 'mini-table'],
    });
  });

  test('an unknown notification template: 404 notification template not found, with the slug and the release', async () => {
    const release = await post('/api/admin/apps/shop/releases', admin, { version: 1, status: 'Live', templates: [{ slug: 'order-shipped', title: 'Shipped', body: 'On its way' }] });
    expect(release.status).toBe(201);
    const res = await post('/api/apps/shop/notifications/send', service, { templateSlug: 'order-shiped' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ title: 'Not Found', status: 404, detail: 'notification template not found', slug: 'order-shiped', releaseVersion: 1 });
  });

  test("a typo in the app id: 401 invalid service key, naming the key's app; a wrong key on an unknown app says only what to check", async () => {
    const typo = await fetch(`${url}/api/apps/shp/live-activities`, { headers: { 'x-service-key': KEY } });
    expect(typo.status).toBe(401);
    expect(await typo.json()).toMatchObject({ detail: 'invalid service key', appId: 'shp', keyAppId: 'shop' });
    const guess = (await (await fetch(`${url}/api/apps/shp/live-activities`, { headers: { 'x-service-key': 'sk_guess' } })).json()) as Record<string, unknown>;
    const wrong = (await (await fetch(`${url}/api/apps/shop/live-activities`, { headers: { 'x-service-key': 'sk_guess' } })).json()) as Record<string, unknown>;
    expect(guess.keyAppId).toBeUndefined();
    expect(JSON.stringify(wrong).replaceAll('shop', 'shp')).toBe(JSON.stringify(guess));
  });
});
