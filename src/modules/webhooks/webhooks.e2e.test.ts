import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createIsletClient, type IsletClient } from '../../client/islet-client';
import { apnsToken } from '../../test-support/apns-standin';
import type { SpawnedServer } from '../../test-support/spawn-server';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { forEachDatabase } from '../../test-support/databases';
import { unlabelled } from '../../test-support/metrics-text';
import { eventually, until } from '../../test-support/eventually';

forEachDatabase('webhooks-e2e', (database) => {
  const SECRET = 'sk_webhooks_e2e';
  const ADMIN = 'webhooks-admin';
  let served: ServedApp;
  let server: SpawnedServer;
  let receiver: WebhookReceiver;
  let islet: IsletClient;
  let admin: IsletClient;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    served = await serveApp({ app: 'hooks', secret: SECRET, admin: ADMIN });
    server = served.server;
    islet = createIsletClient({ baseUrl: server.url, serviceKey: SECRET });
    admin = createIsletClient({ baseUrl: server.url, adminToken: ADMIN });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await receiver?.close();
  }, 30_000);

  describe('webhooks through a real server process (real time)', () => {
    test('a receiver that is down gets the events later, each verified with the standardwebhooks package', async () => {
      const app = { appId: 'hooks' };
      const created = await admin.POST('/api/admin/apps/{appId}/webhooks', {
        params: { path: app },
        body: { url: receiver.url, events: ['live_activity.started', 'live_activity.ended'] },
      });
      expect(created.response.status).toBe(201);
      receiver.secret = created.data!.secret;
      await receiver.down();

      expect((await islet.POST('/api/apps/{appId}/devices', { params: { path: app }, body: { endUserId: 'u1', platform: 'android', token: 'tok-u1' } })).response.status).toBe(200);
      const started = await islet.POST('/api/apps/{appId}/live-activities', {
        params: { path: app },
        body: { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' } },
      });
      const activityId = started.data!.activities[0]!.id;
      expect((await islet.DELETE('/api/apps/{appId}/live-activities/{id}', { params: { path: { ...app, id: activityId } } })).response.status).toBe(200);

      // The first attempt (within a second) finds nobody listening.
      const attempts = async () =>
        (await admin.GET('/api/admin/apps/{appId}/webhooks/{id}/attempts', { params: { path: { ...app, id: created.data!.id }, query: {} } })).data!.attempts;
      // Up to 15 s: on a busy machine a fresh server's first webhook run (the scheduler's leader) can come late.
      const failed = await eventually(async () => {
        const listed = await attempts();
        expect(listed.length).toBeGreaterThanOrEqual(2);
        return listed;
      }, { timeoutMs: 15_000, intervalMs: 100 });
      expect(failed.map((a) => [a.attempt, a.ok])).toEqual([[1, false], [1, false]]);
      receiver.up();

      // The retry 5 s later delivers both.
      await until('the receiver has both events', () => receiver.events.length >= 2, { timeoutMs: 15_000, intervalMs: 100 });
      expect(receiver.rejected).toEqual([]);
      expect(receiver.events.map((e) => [e.type, e.data.activityId]).sort()).toEqual([
        ['live_activity.ended', activityId],
        ['live_activity.started', activityId],
      ]);
      expect(receiver.events.find((e) => e.type === 'live_activity.ended')!.data.endReason).toBe('api');
      // Each post's attempt is recorded once its answer came: a moment after the receiver has the event.
      await eventually(async () => expect((await attempts()).filter((a) => a.ok).map((a) => a.attempt)).toEqual([2, 2]), { timeoutMs: 5_000, intervalMs: 50 });
    }, 30_000);

    test('a start that cannot reach an iPhone without a push-to-start token raises delivery.failed and counts as failed, like a failure of the worker', async () => {
      const app = { appId: 'hooks' };
      const failures = await startWebhookReceiver();
      try {
        const created = await admin.POST('/api/admin/apps/{appId}/webhooks', { params: { path: app }, body: { url: failures.url, events: ['delivery.failed'] } });
        failures.secret = created.data!.secret;
        const device = await islet.POST('/api/apps/{appId}/devices', { params: { path: app }, body: { endUserId: 'no-start', platform: 'ios', token: apnsToken() } });
        expect(device.response.status).toBe(200);
        const started = await islet.POST('/api/apps/{appId}/live-activities', {
          params: { path: app },
          body: { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' }, targetUsers: ['no-start'] },
        });
        expect(started.response.status).toBe(200);
        await until('the receiver has the failure', () => failures.events.length >= 1, { intervalMs: 100 });
        expect(failures.rejected).toEqual([]);
        expect(failures.events.map((e) => e.type)).toEqual(['delivery.failed']);
        expect(failures.events[0]!.data).toMatchObject({
          kind: 'la_start',
          activityId: started.data!.activities[0]!.id,
          deviceId: device.data!.device.id,
          endUserId: 'no-start',
          platform: 'ios',
          reason: 'device has no push-to-start token',
          attempts: 0,
        });
        const metrics = unlabelled(await (await fetch(`${server.url}/metrics`)).text());
        expect(metrics).toContain('islet_deliveries_total{app="hooks",provider="none",kind="la_start",outcome="failed"} 1');
      } finally {
        await failures.close();
      }
    }, 30_000);
  });
});
