import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { apnsToken } from '../../test-support/apns-standin';
import { serverClient } from '../../test-support/server-client';
import type { SpawnedServer } from '../../test-support/spawn-server';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('billing-e2e', (database) => {
  const SECRET = 'sk_billing_e2e';
  let served: ServedApp;
  let server: SpawnedServer;

  beforeAll(async () => {
    served = await serveApp({ app: 'billing', secret: SECRET });
    server = served.server;
  }, 30_000);
  afterAll(async () => {
    await served?.close();
  });

  const { call, admin } = serverClient(() => server.url, SECRET, 't');

  describe('billing through a real server process', () => {
    test('an activity no phone can show stays Active, uses no minutes, and its admin record says why it has no instance', async () => {
      expect((await call('POST', '/api/apps/billing/devices', { endUserId: 'no-start', platform: 'ios', token: apnsToken() })).status).toBe(200);
      const started = await call('POST', '/api/apps/billing/live-activities', {
        templateSlug: 'metric-live',
        attributes: { label: 'Score' },
        contentState: { value: '1' },
        targetUsers: ['no-start'],
      });
      expect(started.body.activityCount).toBe(1);
      const id = started.body.activities[0].id;
      // Long enough for a billed activity to show in the usage (0.01 minute is 0.6 s).
      await Bun.sleep(1200);
      const detail = (await admin('GET', `/api/admin/apps/billing/live-activities/${id}`)).body;
      expect([detail.state, detail.instances, detail.noInstanceReason]).toEqual(['Active', [], 'device has no push-to-start token']);
      expect((await admin('GET', '/api/admin/apps/billing/usage')).body).toMatchObject({ minutesUsed: 0, activeActivities: 1 });
    }, 30_000);
  });
});
