import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsToken } from '../../test-support/apns-standin';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('billing-e2e', (database) => {
  const SECRET = 'sk_billing_e2e';
  let dir: string;
  let server: SpawnedServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-billing-'));
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
        `[[apps]]\nid = "billing"\napp_secret = "${SECRET}"\n`,
    );
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
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
