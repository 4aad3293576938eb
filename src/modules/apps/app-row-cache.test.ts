import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createApp } from '../../app';
import { localWakeUps } from '../../coordination/local/wake-ups';
import type { AppContext } from '../../context';
import { FakeClock } from '../../lib/clock';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { testRows } from '../../test-support/test-sql';
import { APP_ROW_CACHE_MAX, APP_ROW_TTL_MS, appRowCache } from './app-row-cache';
import type { AppRow } from './apps.types';
import { appsRepository } from './apps.repository';

let h: Harness<AppContext> | undefined;
let served: ServedApp | undefined;
afterEach(async () => {
  await h?.close();
  await served?.close();
  h = served = undefined;
});

const list = (harness: Harness<AppContext>, appId: string, key: string) =>
  harness.request('GET', `/api/apps/${appId}/live-activities`, { headers: { 'x-service-key': key } });
const start = (harness: Harness<AppContext>, appId: string) =>
  harness.service(appId, 'POST', `/api/apps/${appId}/live-activities`, { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' } });

forEachDatabase('the app row that authenticates a request, kept in memory', (database) => {
  test('a rotated App Secret: the old key is refused at once on this instance, the new one works', async () => {
    h = await createHarness({ database });
    const { appSecret } = await h.createApp({ id: 'shop' });
    expect((await list(h, 'shop', appSecret)).status).toBe(200);
    const rotated = await h.admin('POST', '/api/admin/apps/shop/secrets/app-secret');
    expect(rotated.status).toBe(200);
    expect((await list(h, 'shop', appSecret)).status).toBe(401);
    expect((await list(h, 'shop', rotated.body.appSecret)).status).toBe(200);
  });

  test('a deleted app: its key is refused at once', async () => {
    h = await createHarness({ database });
    const { appSecret } = await h.createApp({ id: 'shop' });
    expect((await list(h, 'shop', appSecret)).status).toBe(200);
    expect((await h.admin('DELETE', '/api/admin/apps/shop')).status).toBe(200);
    expect((await list(h, 'shop', appSecret)).status).toBe(401);
  });

  test('a plan changed through the admin API counts from the next request: a plan without live activities refuses a start', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'shop', plan: 'pro' });
    expect((await h.service('shop', 'POST', '/api/apps/shop/devices', { endUserId: 'u1', platform: 'android', token: 't1' })).status).toBe(200);
    expect((await start(h, 'shop')).status).toBe(200);
    expect((await h.admin('PATCH', '/api/admin/apps/shop', { plan: 'free' })).status).toBe(200);
    const refused = await start(h, 'shop');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('live activities are not available on your current plan');
  });

  test('a changed Signing Secret: an end user signed with the old one is refused at once', async () => {
    h = await createHarness({ database });
    const { signingSecret } = await h.createApp({ id: 'shop' });
    const register = (secret: string) =>
      h!.request('POST', '/api/apps/shop/devices', {
        body: { endUserId: 'u1', platform: 'android', token: 't1' },
        headers: { 'x-end-user-signature': createHmac('sha256', secret).update('u1').digest('hex') },
      });
    expect((await register(signingSecret)).status).toBe(200);
    const rotated = await h.admin('POST', '/api/admin/apps/shop/secrets/signing-secret');
    expect((await register(signingSecret)).status).toBe(401);
    expect((await register(rotated.body.signingSecret)).status).toBe(200);
  });

  test('the second request of an app reads no app row: one statement less per request', async () => {
    h = await createHarness({ database });
    const { appSecret } = await h.createApp({ id: 'shop' });
    // Counted on the repository the services are built on (a fresh app on the harness's context).
    const repo = appsRepository(h.ctx.db.sql);
    const find = repo.find;
    const reads: string[] = [];
    repo.find = (id) => (reads.push(id), find(id));
    const app = createApp(h.ctx);
    const call = async (appId = 'shop', key = appSecret) =>
      (await app.handle(new Request(`http://islet.test/api/apps/${appId}/live-activities`, { headers: { 'x-service-key': key } }))).status;
    expect(await call()).toBe(200);
    expect(reads).toEqual(['shop']);
    expect(await call()).toBe(200);
    expect(await call()).toBe(200);
    expect(reads).toEqual(['shop']);
    // After the backstop's time, read once again.
    h.clock.advance(APP_ROW_TTL_MS);
    expect(await call()).toBe(200);
    expect(reads).toEqual(['shop', 'shop']);
    // A refusal reads the row once, of a known app (a key rotated elsewhere may be the new one) as of an unknown one.
    expect(await call('shop', 'sk_wrong')).toBe(401);
    expect(await call('nope', 'sk_wrong')).toBe(401);
    expect(reads).toEqual(['shop', 'shop', 'shop', 'nope']);
  });

  test('a row changed behind the service’s back (as by an instance whose notification was lost) is read again after APP_ROW_TTL_MS', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'shop', plan: 'pro' });
    expect((await h.service('shop', 'POST', '/api/apps/shop/devices', { endUserId: 'u1', platform: 'android', token: 't1' })).status).toBe(200);
    expect((await start(h, 'shop')).status).toBe(200);
    await testRows(h.ctx, `UPDATE apps SET plan = 'free' WHERE id = 'shop'`);
    h.clock.advance(APP_ROW_TTL_MS - 1);
    expect((await start(h, 'shop')).status).toBe(200);
    h.clock.advance(1);
    expect((await start(h, 'shop')).status).toBe(403);
  });
});

describe('the app row cache (a served process)', () => {
  test('a rotated App Secret is refused at once by the process that rotated it, after the key was used', async () => {
    served = await serveApp({ app: 'shop', secret: 'sk_served_cache', admin: 'adm' });
    const url = served.server.url;
    const list = async (key: string) => (await fetch(`${url}/api/apps/shop/live-activities`, { headers: { 'x-service-key': key } })).status;
    expect(await list('sk_served_cache')).toBe(200);
    expect(await list('sk_served_cache')).toBe(200);
    const rotated = await fetch(`${url}/api/admin/apps/shop/secrets/app-secret`, { method: 'POST', headers: { authorization: 'Bearer adm' } });
    expect(rotated.status).toBe(200);
    const { appSecret } = (await rotated.json()) as { appSecret: string };
    expect(await list('sk_served_cache')).toBe(401);
    expect(await list(appSecret)).toBe(200);
  });
});

describe('appRowCache', () => {
  const clock = new FakeClock();
  const row = (id: string, plan = 'pro') => ({ id, plan }) as AppRow;
  const any = () => true;
  const cacheOn = (load: (id: string) => Promise<AppRow | undefined>) => {
    const wakeUps = localWakeUps();
    return { wakeUps, cache: appRowCache({ clock, coordination: { wakeUps } } as unknown as AppContext, load) };
  };

  test(`keeps at most ${APP_ROW_CACHE_MAX} rows, and none for ids that name no app`, async () => {
    const { cache } = cacheOn(async (id) => (id.startsWith('app') ? row(id) : undefined));
    for (let i = 0; i < 2_000; i++) expect((await cache.check(`nothing-${i}`, any)).row).toBeUndefined();
    expect(cache.size).toBe(0);
    for (let i = 0; i <= APP_ROW_CACHE_MAX; i++) await cache.check(`app-${i}`, any);
    expect(cache.size).toBe(APP_ROW_CACHE_MAX);
  });

  test('a row read while a change was told is answered but not kept: it may be the old one', async () => {
    let plan = 'pro';
    let release = () => {};
    const { cache, wakeUps } = cacheOn(async (id) => {
      const read = row(id, plan);
      await new Promise<void>((resolve) => (release = resolve));
      return read;
    });
    const reading = cache.check('shop', any);
    plan = 'free';
    wakeUps.notify('app-changed', 'shop');
    release();
    expect((await reading).row?.plan).toBe('pro');
    const next = cache.check('shop', any);
    release();
    expect((await next).row?.plan).toBe('free');
  });

  test("'app-changed' forgets its app; without a subject (the listening connection came back) every app", async () => {
    const reads: string[] = [];
    const { cache, wakeUps } = cacheOn(async (id) => (reads.push(id), row(id)));
    const both = async () => (await cache.check('a', any), await cache.check('b', any));
    await both();
    await both();
    expect(reads).toEqual(['a', 'b']);
    wakeUps.notify('app-changed', 'a');
    await both();
    expect(reads).toEqual(['a', 'b', 'a']);
    wakeUps.notify('app-changed');
    await both();
    expect(reads).toEqual(['a', 'b', 'a', 'a', 'b']);
  });

  test('a kept row the credential does not pass is read again, and the row read is kept', async () => {
    let plan = 'pro';
    const reads: string[] = [];
    const { cache } = cacheOn(async (id) => (reads.push(id), row(id, plan)));
    await cache.check('shop', any);
    plan = 'free';
    const free = (r: AppRow | undefined) => r?.plan === 'free';
    expect(await cache.check('shop', free)).toEqual({ row: row('shop', 'free'), accepted: true });
    expect(await cache.check('shop', free)).toEqual({ row: row('shop', 'free'), accepted: true });
    expect(reads).toEqual(['shop', 'shop']);
    expect((await cache.check('shop', () => false)).accepted).toBe(false);
    expect(reads).toEqual(['shop', 'shop', 'shop']);
  });
});
