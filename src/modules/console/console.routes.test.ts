import { afterEach, describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, createHarness, type Harness } from '../../test-support/harness';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('console', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  /** Signs in and returns what the console page holds: the cookie pair and the CSRF token. */
  async function signIn(harness: Harness<AppContext>) {
    const res = await harness.request('POST', '/console/api/session', { body: { token: ADMIN_TOKEN } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    return { cookie, csrf: res.body.csrfToken as string, res };
  }

  const withSession = (cookie: string, csrf?: string) => ({ cookie, ...(csrf ? { 'x-csrf-token': csrf } : {}) });

  describe('console sign-in', () => {
    test('the admin token opens a session: HttpOnly, SameSite=Strict cookie and a CSRF token', async () => {
      h = await createHarness({ database });
      const { res, csrf } = await signIn(h);
      const setCookie = res.headers.get('set-cookie')!;
      expect(setCookie).toMatch(/^islet_session=[\w-]{40,};/);
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('SameSite=Strict');
      expect(setCookie).toContain('Path=/');
      expect(setCookie).toContain('Max-Age=43200');
      expect(setCookie).not.toContain('Secure');
      expect(csrf.length).toBeGreaterThan(20);
      expect(res.body.expiresAt).toBe(new Date(h.clock.now() + 12 * 3600_000).toISOString());
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    test('the cookie is Secure when the public address is https', async () => {
      h = await createHarness({ database, toml: 'public_url = "https://islet.example.com"\n' });
      const { res } = await signIn(h);
      expect(res.headers.get('set-cookie')).toContain('; Secure');
    });

    test('a wrong token is refused with a problem body and sets no cookie', async () => {
      h = await createHarness({ database });
      const res = await h.request('POST', '/console/api/session', { body: { token: 'nope' } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ title: 'Unauthorized', status: 401, detail: 'invalid admin token' });
      expect(res.headers.get('set-cookie')).toBeNull();
    });

    test('repeated wrong tokens make the address wait, even for the right token, until time passes', async () => {
      h = await createHarness({ database });
      for (let i = 0; i < 5; i++) expect((await h.request('POST', '/console/api/session', { body: { token: `guess-${i}` } })).status).toBe(401);
      expect((await h.request('POST', '/console/api/session', { body: { token: 'guess-5' } })).status).toBe(401);
      const locked = await h.request('POST', '/console/api/session', { body: { token: ADMIN_TOKEN } });
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe('1');
      h.clock.advance(1000);
      expect((await h.request('POST', '/console/api/session', { body: { token: 'guess-6' } })).status).toBe(401);
      const longer = await h.request('POST', '/console/api/session', { body: { token: ADMIN_TOKEN } });
      expect(longer.headers.get('retry-after')).toBe('2');
      h.clock.advance(2000);
      await signIn(h);
    });

    test('GET session answers the CSRF token to a signed-in page and 401 otherwise', async () => {
      h = await createHarness({ database });
      expect((await h.request('GET', '/console/api/session')).status).toBe(401);
      const { cookie, csrf } = await signIn(h);
      const res = await h.request('GET', '/console/api/session', { headers: withSession(cookie) });
      expect(res.status).toBe(200);
      expect(res.body.csrfToken).toBe(csrf);
    });
  });

  describe('admin API with a console session', () => {
    test('reads need only the cookie', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'demo' });
      const { cookie } = await signIn(h);
      const res = await h.request('GET', '/api/admin/apps', { headers: withSession(cookie) });
      expect(res.status).toBe(200);
      expect(res.body.apps.map((a: { id: string }) => a.id)).toEqual(['demo']);
    });

    test('mutations need the CSRF token as well', async () => {
      h = await createHarness({ database });
      const { cookie, csrf } = await signIn(h);
      const missing = await h.request('POST', '/api/admin/apps', { body: { id: 'x' }, headers: withSession(cookie) });
      expect(missing.status).toBe(403);
      expect(missing.body.detail).toBe('missing or invalid CSRF token');
      const wrong = await h.request('DELETE', '/api/admin/apps/x', { headers: withSession(cookie, 'forged') });
      expect(wrong.status).toBe(403);
      const ok = await h.request('POST', '/api/admin/apps', { body: { id: 'x' }, headers: withSession(cookie, csrf) });
      expect(ok.status).toBe(201);
    });

    test('the Bearer header wins over a cookie, so a wrong token is refused whatever the cookie', async () => {
      h = await createHarness({ database });
      const { cookie } = await signIn(h);
      const res = await h.request('GET', '/api/admin/apps', { headers: { ...withSession(cookie), authorization: 'Bearer wrong' } });
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('invalid admin token');
      expect((await h.admin('GET', '/api/admin/apps')).status).toBe(200);
    });

    test('after sign-out the cookie no longer works', async () => {
      h = await createHarness({ database });
      const { cookie, csrf } = await signIn(h);
      expect((await h.request('DELETE', '/console/api/session', { headers: withSession(cookie) })).status).toBe(403);
      const out = await h.request('DELETE', '/console/api/session', { headers: withSession(cookie, csrf) });
      expect(out.status).toBe(200);
      expect(out.headers.get('set-cookie')).toContain('islet_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
      const res = await h.request('GET', '/api/admin/apps', { headers: withSession(cookie) });
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('console session expired or signed out; sign in again');
      expect((await h.request('GET', '/console/api/session', { headers: withSession(cookie) })).status).toBe(401);
    });

    test('sessions expire after twelve hours', async () => {
      h = await createHarness({ database });
      const { cookie } = await signIn(h);
      h.clock.advance(12 * 3600_000 - 1);
      expect((await h.request('GET', '/api/admin/apps', { headers: withSession(cookie) })).status).toBe(200);
      h.clock.advance(1);
      expect((await h.request('GET', '/api/admin/apps', { headers: withSession(cookie) })).status).toBe(401);
      expect((await h.request('GET', '/console/api/session', { headers: withSession(cookie) })).status).toBe(401);
    });

    test('an invented session id is refused', async () => {
      h = await createHarness({ database });
      const res = await h.request('GET', '/api/admin/apps', { headers: withSession('islet_session=made-up') });
      expect(res.status).toBe(401);
    });
  });
});
