import { afterEach, describe, expect, test } from 'bun:test';
import { EVERY_CHANGE, makeEveryKindOfChange } from '../../test-support/audit-changes';
import { ADMIN_TOKEN, createHarness, type Harness } from '../../test-support/harness';
import { sha256Hex } from '../../lib/secrets';
import { AUDITED_ROUTES } from './audit.actions';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('audit-log', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  describe('audit log', () => {
    test('every change through the admin API is recorded with time, actor, address, target and a summary without secrets', async () => {
      h = await createHarness({ database });
      const { secrets } = await makeEveryKindOfChange((method, path, body) => h.admin(method, path, body));
      // Reads and refused changes are not changes.
      await h.admin('GET', '/api/admin/apps');
      expect((await h.admin('PATCH', '/api/admin/apps/nope', { plan: 'pro' })).status).toBe(404);

      const res = await h.admin('GET', '/api/admin/audit?limit=100');
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(EVERY_CHANGE.length);
      const entries = [...res.body.entries].reverse();
      expect(entries.map((e: { action: string }) => e.action)).toEqual([...EVERY_CHANGE]);
      const actor = `admin-token:${sha256Hex(ADMIN_TOKEN).slice(0, 8)}`;
      for (const e of entries) {
        expect(e).toMatchObject({ actor, address: 'local', appId: 'audited', at: new Date(h.clock.now()).toISOString() });
      }
      const by = (action: string) => entries.find((e: { action: string }) => e.action === action);
      expect(by('app.create')).toMatchObject({ target: 'apps/audited', summary: { id: 'audited', name: 'Audited', plan: 'free' } });
      expect(by('app.update').summary).toEqual({ plan: 'pro' });
      expect(by('secret.rotate').target).toBe('apps/audited/secrets/app-secret');
      expect(by('apns.set').summary).toEqual({ bundleId: 'com.example.audited', teamId: 'TEAM123456', keyId: 'KEY1234567' });
      expect(by('fcm.set').summary).toEqual({ projectId: 'audited-project', clientEmail: 'push@audited.iam.example' });
      expect(by('web-push.set').summary).toEqual({ subject: 'mailto:ops@audited.example', defaultUrl: 'https://audited.example/' });
      expect(by('tester.set')).toMatchObject({ target: 'apps/audited/end-users/u1', summary: { tester: true } });
      expect(by('device.remove').target).toStartWith('apps/audited/devices/dev_');
      expect(by('release.create').summary).toEqual({ version: 1, templates: ['hello'] });
      expect(by('template.put')).toMatchObject({ target: 'apps/audited/releases/1/templates/bye', summary: { title: 'Bye', body: 'See you' } });
      expect(by('release.status').summary).toEqual({ status: 'Live' });
      const text = JSON.stringify(res.body);
      for (const secret of [...secrets, ADMIN_TOKEN]) expect(text).not.toContain(secret);
    });

    test('filters by app, action, actor and time, with limit and offset; bad filters are 400', async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      h.clock.advance(60_000);
      await h.createApp({ id: 'a2' });
      await h.admin('POST', '/api/admin/apps/a2/secrets/signing-secret');
      const list = async (q: string) => (await h.admin('GET', `/api/admin/audit${q}`)).body;
      expect((await list('?appId=a2')).total).toBe(2);
      expect((await list('?action=secret.rotate')).entries.map((e: { appId: string }) => e.appId)).toEqual(['a2']);
      const since = new Date(h.clock.now()).toISOString();
      expect((await list(`?since=${since}`)).total).toBe(2);
      expect((await list(`?until=${since}`)).entries.map((e: { appId: string }) => e.appId)).toEqual(['a1']);
      const page = await list('?limit=1&offset=1');
      expect([page.total, page.entries.length, page.entries[0].action]).toEqual([3, 1, 'app.create']);
      expect((await list('?actor=console:00000000')).total).toBe(0);
      expect((await h.admin('GET', '/api/admin/audit?since=yesterday')).body.detail).toBe('since must be an ISO 8601 date-time');
      expect((await h.admin('GET', '/api/admin/audit?limit=0')).body.detail).toBe('limit must be an integer from 1 to 100');
      expect((await h.request('GET', '/api/admin/audit')).status).toBe(401);
    });

    test('a console session is recorded as console:<hash prefix> at sign-in and on its changes', async () => {
      h = await createHarness({ database });
      const signIn = await h.request('POST', '/console/api/session', { body: { token: ADMIN_TOKEN } });
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const sessionId = cookie.split('=')[1]!;
      const created = await h.request('POST', '/api/admin/apps', { body: { id: 'c1' }, headers: { cookie, 'x-csrf-token': signIn.body.csrfToken } });
      expect(created.status).toBe(201);
      const { entries } = (await h.admin('GET', '/api/admin/audit')).body;
      const actor = `console:${sha256Hex(sessionId).slice(0, 8)}`;
      expect(entries.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
        ['app.create', actor],
        ['console.sign-in', actor],
      ]);
      expect(JSON.stringify(entries)).not.toContain(sessionId);
    });

    test('every mutating admin route has an audit action', async () => {
      h = await createHarness({ database });
      const mutating = h.app.routes
        .filter((r) => r.path.startsWith('/api/admin') && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
        .map((r) => `${r.method} ${r.path}`)
        .sort();
      expect(mutating).toEqual(Object.keys(AUDITED_ROUTES).sort());
    });
  });
});
