import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIsletClient } from '../../client/islet-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { forEachDatabase } from '../../test-support/databases';
import { eventually } from '../../test-support/eventually';

forEachDatabase('quota-e2e', (database) => {
  let dir: string;
  let server: SpawnedServer | undefined;
  afterEach(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('quota end to end (real server, real time)', () => {
    test('with tick_seconds = 1 and minutes = 1, two activities started together end within about 31 s, then starts answer 429', async () => {
      dir = mkdtempSync(join(tmpdir(), 'islet-quota-'));
      server = await spawnServer(
        dir,
        `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
          `[scheduler]\ntick_seconds = 1\n[plans.tiny]\nlive_activities = true\nminutes = 1\n` +
          `[[apps]]\nid = "q"\nplan = "tiny"\napp_secret = "sk_quota_test"\n`,
      );
      const islet = createIsletClient({ baseUrl: server.url, serviceKey: 'sk_quota_test' });
      const app = { path: { appId: 'q' } };
      for (const user of ['u1', 'u2']) await islet.POST('/api/apps/{appId}/devices', { params: app, body: { endUserId: user, platform: 'android', token: `tok-${user}` } });
      const startBody = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0' } };
      const started = await islet.POST('/api/apps/{appId}/live-activities', { params: app, body: startBody });
      expect(started.data?.activityCount).toBe(2);
      const startedAt = Date.now();

      await eventually(async () => {
        const list = await islet.GET('/api/apps/{appId}/live-activities', { params: { ...app, query: {} } });
        expect(list.data!.activities.map((a) => a.state)).toEqual(['Ended', 'Ended']);
      }, { timeoutMs: 60_000, intervalMs: 250 });
      const refused = await islet.POST('/api/apps/{appId}/live-activities', { params: app, body: startBody });
      expect(refused.response.status).toBe(429);
      expect(refused.error?.detail).toBe('live activity minutes limit exceeded for this billing period');
      console.log(`quota end to end: both activities ended ${((Date.now() - startedAt) / 1000).toFixed(1)} s after the start`);
    }, 90_000);
  });
});
