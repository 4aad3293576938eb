import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../test-support/harness';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('demo', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  describe('admin API: the demo app', () => {
    test('creates app demo with its end users, devices (fixed ids), a Live and a Draft release, a running activity, an activity stream and a welcome notification; once', async () => {
      h = await createHarness({ database });
      const res = await h.admin('POST', '/api/admin/demo');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ app: { id: 'demo', name: 'Demo app' }, endUsers: ['demo-user', 'demo-friend'], devices: 3, releaseVersion: 1, notifications: 3 });
      expect(res.body.appSecret).toStartWith('sk_');
      expect((await h.admin('GET', '/api/admin/apps/demo/audience')).body).toEqual({ endUsers: 2, devices: 3, ios: 1, android: 2, web: 0, iosStartable: 1 });
      expect((await h.admin('GET', '/api/admin/apps/demo/releases')).body.releases).toMatchObject([{ version: 2, status: 'Draft' }, { version: 1, status: 'Live' }]);
      expect((await h.admin('GET', '/api/admin/apps/demo/devices')).body.devices.map((d: { id: string }) => d.id).sort()).toEqual(['dev_demo_friend', 'dev_demo_iphone', 'dev_demo_pixel']);
      expect(res.body.activityId).toBe('la_demo');
      const stream = await h.request('GET', '/api/apps/demo/live-activity-streams/demo-order', { headers: { 'x-service-key': res.body.appSecret } });
      expect(stream.body).toMatchObject({ key: 'demo-order', state: 'Active', templateSlug: 'status-tracker', targetUsers: ['demo-user'] });
      const users = (await h.admin('GET', '/api/admin/apps/demo/end-users')).body.endUsers;
      expect(users.find((u: { id: string }) => u.id === 'demo-user').tester).toBe(true);
      expect((await h.admin('GET', `/api/admin/apps/demo/live-activities/${res.body.activityId}`)).body).toMatchObject({ endUserId: 'demo-user', state: 'Active' });
      expect((await h.admin('GET', '/api/admin/apps/demo/deliveries?templateSlug=welcome')).body.total).toBe(3);
      // The public API works with the returned App Secret, as the docs' examples do.
      const listed = await h.request('GET', '/api/apps/demo/live-activities?endUserId=demo-user', { headers: { 'x-service-key': res.body.appSecret } });
      expect({ status: listed.status, total: listed.body.total }).toEqual({ status: 200, total: 2 });

      const again = await h.admin('POST', '/api/admin/demo');
      expect(again.status).toBe(409);
      expect(again.body.detail).toBe('app demo already exists: open it in the console, or delete it to make a fresh demo');
      const audit = (await h.admin('GET', '/api/admin/audit?action=demo.create')).body.entries;
      expect(audit).toMatchObject([{ action: 'demo.create', appId: 'demo', target: 'apps/demo' }]);
    });
  });
});
