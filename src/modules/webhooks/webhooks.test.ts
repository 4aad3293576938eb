import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test';
import { apnsToken } from '../../test-support/apns-standin';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import { createHarness, type Harness } from '../../test-support/harness';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { FakeClock } from '../../lib/clock';
import { credentialsReset } from '../delivery/endpoint-health/endpoint-reset';
import { createDeliveryEngine } from '../delivery/delivery.engine';
import { activitiesPath, connect, progress } from '../../test-support/live-activity-fixtures';
import { quotaJob } from '../scheduler/jobs/quota.job';
import { retentionJob } from '../scheduler/jobs/retention.job';
import { DISABLE_AFTER_MS, RETRY_DELAYS_MS, webhookDispatcher } from './webhooks.dispatcher';
import { WEBHOOK_EVENT_TYPES } from './webhooks.events';
import { appsService } from '../apps/apps.service';
import { webhooksService } from './webhooks.service';
import { failInserts, testRows } from '../../test-support/test-sql';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';
import { unlabelled } from '../../test-support/metrics-text';

forEachDatabase('webhooks', (database) => {
  let h: Harness<AppContext>;
  let receiver: WebhookReceiver;
  let fcm: FcmStandin | undefined;
  const MINUTE = 60_000;

  beforeEach(async () => {
    // The clock starts at the real time, and "real time" (Date, which the receiver's timestamp check reads) follows it.
    h = await createHarness({ database, clock: new FakeClock(Date.now()), toml: `[plans.tiny]\nlive_activities = true\nminutes = 10\n` });
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    setSystemTime();
    await receiver.close();
    await fcm?.close();
    fcm = undefined;
    h.close();
  });

  const advance = (ms: number) => {
    h.clock.advance(ms);
    setSystemTime(new Date(h.clock.now()));
  };
  const hooks = (appId: string) => `/api/admin/apps/${appId}/webhooks`;

  async function endpoint(appId: string, body: Record<string, unknown> = {}) {
    const res = await h.admin('POST', hooks(appId), { url: receiver.url, ...body });
    expect(res.status).toBe(201);
    receiver.secret = res.body.secret;
    return res.body as { id: string; secret: string };
  }

  describe('webhook endpoints (admin API)', () => {
    test('create answers 201 with a whsec_ secret; list, get, patch, rotate and delete', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const created = await h.admin('POST', hooks(appId), { url: receiver.url, events: ['delivery.failed'], description: 'backend' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ url: receiver.url, events: ['delivery.failed'], description: 'backend', enabled: true, disabledReason: null });
      expect(created.body.id).toStartWith('whk_');
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      const id = created.body.id;

      expect((await h.admin('GET', hooks(appId))).body.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
      expect((await h.admin('GET', `${hooks(appId)}/${id}`)).body).not.toHaveProperty('secret');
      const patched = await h.admin('PATCH', `${hooks(appId)}/${id}`, { events: null, enabled: false });
      expect(patched.body).toMatchObject({ events: null, enabled: false });
      const rotated = await h.admin('POST', `${hooks(appId)}/${id}/secret`);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(created.body.secret);
      expect((await h.admin('DELETE', `${hooks(appId)}/${id}`)).body).toEqual({ success: true });
      expect((await h.admin('GET', `${hooks(appId)}/${id}`)).status).toBe(404);
    });

    test('bad input is 400 naming the field; another app’s endpoint is 404; changes are audited without the secret', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      await h.createApp({ id: 'other' });
      const badUrl = await h.admin('POST', hooks(appId), { url: 'ftp://example.com/x' });
      expect([badUrl.status, badUrl.body.detail]).toEqual([400, 'url must be an https URL']);
      const badEvent = await h.admin('POST', hooks(appId), { url: receiver.url, events: ['delivery.exploded'] });
      expect(badEvent.status).toBe(400);
      expect(badEvent.body.detail).toContain('events');
      const { id } = await endpoint(appId);
      expect((await h.admin('GET', `${hooks('other')}/${id}`)).status).toBe(404);
      const audit = await h.admin('GET', `/api/admin/audit?appId=${appId}`);
      const entry = audit.body.entries.find((e: { action: string }) => e.action === 'webhook.create');
      // The URL by origin only: a receiver's path or query may be its own secret.
      expect(entry.summary).toMatchObject({ url: new URL(receiver.url).origin, id });
      expect(JSON.stringify(audit.body)).not.toContain(receiver.url);
      expect(JSON.stringify(audit.body)).not.toContain(receiver.secret);
    });
  });

  describe('secret rotation', () => {
    test('for 24 hours after a rotation both secrets sign, so a receiver with either verifies; then only the new one', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const { id, secret: old } = await endpoint(appId);
      const rotated = (await h.admin('POST', `${hooks(appId)}/${id}/secret`)).body;
      expect(Date.parse(rotated.previousSecretValidUntil) - h.clock.now()).toBe(24 * 60 * MINUTE);
      const dispatch = webhookDispatcher(h.ctx);
      const sendTest = async (verifyWith: string) => {
        receiver.secret = verifyWith;
        await h.admin('POST', `${hooks(appId)}/${id}/test`);
        await dispatch.drain();
      };
      await sendTest(old);
      await sendTest(rotated.secret);
      expect([receiver.events.length, receiver.rejected]).toEqual([2, []]);
      advance(24 * 60 * MINUTE);
      await sendTest(rotated.secret);
      await sendTest(old);
      expect(receiver.events).toHaveLength(3);
      expect(receiver.rejected).toHaveLength(1);
    });
  });

  describe('the outbound-address policy', () => {
    test('without allow_private_endpoints a private or loopback URL is refused at creation, and a stored one is never posted to', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const strict = { ...h.ctx, config: { ...h.ctx.config, security: { ...h.ctx.config.security, allow_private_endpoints: false } } };
      const service = webhooksService(strict, appsService(strict, credentialsReset(strict)));
      // Loopback only: private and metadata ranges are the classifier's tests (lib/outbound-policy.test.ts).
      for (const url of ['http://127.0.0.1:9/x', 'https://[::1]/x', 'https://localhost/x']) {
        await expect(service.create(appId, { url })).rejects.toMatchObject({ status: 400 });
      }
      // An endpoint made while the flag was set, sent after it was turned off: refused before connecting.
      const { id } = await endpoint(appId);
      await h.admin('POST', `${hooks(appId)}/${id}/test`);
      await webhookDispatcher(strict).drain();
      const [attempt] = (await h.admin('GET', `${hooks(appId)}/${id}/attempts`)).body.attempts;
      expect(attempt).toMatchObject({ ok: false, responseStatus: null });
      expect(attempt.error).toContain('loopback');
      expect(receiver.events).toEqual([]);
      expect(receiver.rejected).toEqual([]);
    });
  });

  describe('webhook events from their real causes', () => {
    test('every listed event type reaches the receiver, signed (verified with the standardwebhooks package)', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks', plan: 'tiny' });
      fcm = await startFcmStandin();
      expect((await h.admin('PUT', `/api/admin/apps/${appId}/fcm`, { serviceAccount: fcm.serviceAccount('p'), endpoint: fcm.url })).status).toBe(200);
      await endpoint(appId);
      const dispatch = webhookDispatcher(h.ctx);
      const engine = createDeliveryEngine(h.ctx, { random: () => 0.5 });

      // live_activity.started, then .ended (by the API), for an Android user.
      await connect(h, appId, 'droid', { token: 'fcm-dead-token' });
      const started = await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['droid'] });
      const droidActivity = started.body.activities[0].id;
      // device.token_invalidated: FCM says the token is unregistered.
      fcm.unregister('fcm-dead-token');
      await engine.drain();
      await h.service(appId, 'DELETE', `${activitiesPath(appId)}/${droidActivity}`);

      // delivery.failed: FCM refuses the message itself (400 INVALID_ARGUMENT, not about the token): no retry.
      await connect(h, appId, 'flaky', { token: 'fcm-flaky-token' });
      fcm.respond((req) => (req.body.message.token === 'fcm-flaky-token' ? { status: 400, rpcStatus: 'INVALID_ARGUMENT' } : undefined));
      const flaky = await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['flaky'] });
      await engine.drain();
      advance(MINUTE);

      // live_activity.token_received: an iPhone reports its activity's update token.
      const phone = await connect(h, appId, 'phone', { platform: 'ios', pushToStartToken: apnsToken() });
      const ios = await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['phone'] });
      expect((await h.service(appId, 'PUT', `${activitiesPath(appId)}/${ios.body.activities[0].id}/push-token`, { token: apnsToken() })).status).toBe(200);

      // notification.opened: the iPhone reports opening a notification sent to it.
      expect((await h.admin('POST', `/api/admin/apps/${appId}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi', body: 'Hello' }] })).status).toBe(201);
      const note = await h.service(appId, 'POST', `/api/apps/${appId}/notifications/send`, { templateSlug: 'hi', targetUsers: ['phone'] });
      expect((await h.service(appId, 'POST', `/api/apps/${appId}/notifications/${note.body.messageId}/opened`, { endUserId: 'phone', deviceId: phone })).status).toBe(200);

      // Two activities run (flaky's for a minute already): 9 of 10 minutes is past 80% (quota.warning),
      // 11 past the quota (quota.exceeded, which also ends both: endReason quota). Each once a period.
      const quota = quotaJob(h.ctx);
      advance(4 * MINUTE);
      await quota.run(h.clock.now());
      await dispatch.drain();
      expect(receiver.events.filter((e) => e.type.startsWith('quota.')).map((e) => e.type)).toEqual(['quota.warning']);
      advance(MINUTE);
      await quota.run(h.clock.now());
      await quota.run(h.clock.now());
      await dispatch.drain();
      await engine.stop();

      expect(receiver.rejected).toEqual([]);
      const types = new Set(receiver.events.map((e) => e.type));
      // channel.down and channel.recovered: the next test, an FCM outage; broadcast.held and
      // broadcast.ended: broadcasts.e2e.test.ts (the APNs stand-in's broadcast errors).
      expect([...types].sort()).toEqual(WEBHOOK_EVENT_TYPES.filter((t) => !t.startsWith('channel.') && !t.startsWith('broadcast.')).sort());
      const of = (type: string) => receiver.events.filter((e) => e.type === type);
      expect(of('quota.warning')).toHaveLength(1);
      expect(of('quota.exceeded')).toHaveLength(1);
      expect(of('quota.exceeded')[0]!.data).toMatchObject({ minutes: 10, overage: false });
      expect(of('live_activity.ended').map((e) => e.data.endReason).sort()).toEqual(['api', 'quota', 'quota']);
      expect(of('delivery.failed')[0]!.data).toMatchObject({ activityId: flaky.body.activities[0].id, endUserId: 'flaky', platform: 'android', kind: 'la_start', attempts: 1 });
      expect(of('delivery.failed')[0]!.data.reason).toContain('INVALID_ARGUMENT');
      expect(of('device.token_invalidated')[0]!.data).toMatchObject({ endUserId: 'droid', tokenKind: 'fcm_registration' });
      expect(of('live_activity.started').map((e) => e.data.activityId)).toContain(droidActivity);
      expect(of('live_activity.token_received')[0]!.data).toMatchObject({ activityId: ios.body.activities[0].id, endUserId: 'phone' });
      expect(of('notification.opened').map((e) => e.data)).toMatchObject([{ messageId: note.body.messageId, endUserId: 'phone', deviceId: phone, platform: 'ios' }]);
      const first = receiver.events[0]!;
      expect(first.id).toStartWith('msg_');
      expect(Date.parse(first.timestamp)).toBeGreaterThan(0);
    });

    test('channel.down when FCM stops answering, channel.recovered when it is back', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      fcm = await startFcmStandin();
      expect((await h.admin('PUT', `/api/admin/apps/${appId}/fcm`, { serviceAccount: fcm.serviceAccount('p'), endpoint: fcm.url })).status).toBe(200);
      await endpoint(appId, { events: ['channel.down', 'channel.recovered'] });
      // Down after 3 connection failures in a row however fast they come (the fake clock does not move during a drain).
      const engine = createDeliveryEngine(h.ctx, { random: () => 0.5, health: { downAfterMs: 0 } });
      for (const user of ['a', 'b', 'c', 'd']) await connect(h, appId, user);
      // One token exchange first, so that the outage is the FCM endpoint's, not the token_uri's.
      await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['a'] });
      await engine.drain();
      await fcm.goAway();
      await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['b', 'c', 'd'] });
      await engine.drain();
      await fcm.comeBack();
      advance(1000);
      await engine.drain();
      await engine.stop();
      await webhookDispatcher(h.ctx).drain();

      expect(receiver.rejected).toEqual([]);
      expect(receiver.events.map((e) => e.type)).toEqual(['channel.down', 'channel.recovered']);
      const [down, recovered] = receiver.events;
      expect(down!.data).toMatchObject({ provider: 'fcm', endpoint: fcm.url });
      expect(down!.data.reason).toBeString();
      expect(recovered!.data).toMatchObject({ provider: 'fcm', endpoint: fcm.url, downSeconds: 1 });
      expect(recovered!.data.released).toBeGreaterThan(0);
    });

    test('an endpoint gets only the events it subscribed to; a disabled one gets none; the test event goes to one endpoint', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const { id } = await endpoint(appId, { events: ['live_activity.ended'] });
      await connect(h, appId, 'u1');
      const started = await h.service(appId, 'POST', activitiesPath(appId), progress);
      await h.service(appId, 'DELETE', `${activitiesPath(appId)}/${started.body.activities[0].id}`);
      const test = await h.admin('POST', `${hooks(appId)}/${id}/test`);
      expect(test.status).toBe(202);
      await webhookDispatcher(h.ctx).drain();
      expect(receiver.events.map((e) => e.type)).toEqual(['live_activity.ended', 'webhook.test']);
      expect(receiver.events[1]!.id).toBe(test.body.eventId);

      await h.admin('PATCH', `${hooks(appId)}/${id}`, { enabled: false });
      await h.service(appId, 'POST', activitiesPath(appId), progress);
      expect((await h.admin('POST', `${hooks(appId)}/${id}/test`)).status).toBe(409);
      expect((await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM webhook_events'))[0]!.n).toBe(2);
    });

    test('a start that cannot reach an iPhone (no push-to-start token) raises delivery.failed in its own transaction, before any worker runs', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      await endpoint(appId, { events: ['delivery.failed'] });
      const iphone = await connect(h, appId, 'no-start', { platform: 'ios' });
      const events = () => testRows<{ type: string }>(h.ctx, 'SELECT type FROM webhook_events ORDER BY id');

      const started = await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['no-start'] });
      expect(started.status).toBe(200);
      expect((await events()).map((e) => e.type)).toEqual(['delivery.failed']);
      expect(unlabelled((await h.request('GET', '/metrics')).body)).toContain('islet_deliveries_total{app="hooks",provider="none",kind="la_start",outcome="failed"} 1');
      await webhookDispatcher(h.ctx).drain();
      expect(receiver.rejected).toEqual([]);
      expect(receiver.events.map((e) => e.data)).toMatchObject([
        { kind: 'la_start', activityId: started.body.activities[0].id, deviceId: iphone, endUserId: 'no-start', platform: 'ios', reason: 'device has no push-to-start token', attempts: 0 },
      ]);

      // A start that fails after queueing (writing its activity) leaves no event behind.
      await failInserts(h.ctx, 'activities');
      expect((await h.service(appId, 'POST', activitiesPath(appId), { ...progress, targetUsers: ['no-start'] })).status).toBe(500);
      expect(await events()).toHaveLength(1);
    });

    test('without endpoints nothing is written', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      await connect(h, appId, 'u1');
      await h.service(appId, 'POST', activitiesPath(appId), progress);
      expect((await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM webhook_events'))[0]!.n).toBe(0);
    });
  });

  describe('webhook retries', () => {
    test('a failing receiver is retried on the Standard Webhooks schedule and gets the event when it is back; attempts are listed', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const { id } = await endpoint(appId);
      const dispatch = webhookDispatcher(h.ctx);
      await receiver.down();
      const { eventId } = (await h.admin('POST', `${hooks(appId)}/${id}/test`)).body;
      await dispatch.drain();
      // Not due before each delay has passed, due once it has.
      for (const delay of RETRY_DELAYS_MS.slice(0, 3)) {
        advance(delay - 1);
        await dispatch.drain();
        expect((await h.admin('GET', `${hooks(appId)}/${id}/attempts`)).body.total).toBe(RETRY_DELAYS_MS.indexOf(delay) + 1);
        advance(1);
        await dispatch.drain();
      }
      expect(receiver.events).toEqual([]);
      expect((await h.admin('GET', `${hooks(appId)}/${id}`)).body.failingSince).not.toBeNull();
      receiver.up();
      advance(RETRY_DELAYS_MS[3]!);
      await dispatch.drain();
      expect(receiver.events.map((e) => e.id)).toEqual([eventId]);

      const attempts = (await h.admin('GET', `${hooks(appId)}/${id}/attempts`)).body;
      expect(attempts.total).toBe(5);
      expect(attempts.attempts.map((a: { attempt: number; ok: boolean }) => [a.attempt, a.ok])).toEqual([[5, true], [4, false], [3, false], [2, false], [1, false]]);
      expect(attempts.attempts[1].error).toContain('ECONNREFUSED');
      expect(attempts.attempts[0].responseStatus).toBe(204);
      expect((await h.admin('GET', `${hooks(appId)}/${id}`)).body.failingSince).toBeNull();
    });

    test('after the last retry the delivery fails; an endpoint failing for 5 days is disabled and marked', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const { id } = await endpoint(appId);
      receiver.answer(503);
      const dispatch = webhookDispatcher(h.ctx);
      const status = async () => (await testRows<{ status: string }>(h.ctx, 'SELECT status FROM webhook_deliveries ORDER BY id')).map((r) => r.status);
      await h.admin('POST', `${hooks(appId)}/${id}/test`);
      await dispatch.drain();
      for (const delay of RETRY_DELAYS_MS) {
        advance(delay);
        await dispatch.drain();
      }
      expect(await status()).toEqual(['failed']);
      expect((await h.admin('GET', `${hooks(appId)}/${id}/attempts`)).body.total).toBe(7);

      // A new event every day; each fails at every attempt until the fifth day has passed.
      const since = h.clock.now() - RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
      while (h.clock.now() - since < DISABLE_AFTER_MS) {
        advance(12 * 60 * MINUTE);
        await h.admin('POST', `${hooks(appId)}/${id}/test`);
        await dispatch.drain();
      }
      const disabled = (await h.admin('GET', `${hooks(appId)}/${id}`)).body;
      expect(disabled.enabled).toBe(false);
      expect(disabled.disabledReason).toContain('disabled after 5 days');
      expect((await status()).includes('pending')).toBe(false);
      expect(receiver.events).toEqual([]);

      // Enabled again by hand: the mark and the failure streak are cleared.
      const enabled = (await h.admin('PATCH', `${hooks(appId)}/${id}`, { enabled: true })).body;
      expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    });

    test('the outbox survives a restart: an event written before it is sent by the next process', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const { id } = await endpoint(appId);
      await h.admin('POST', `${hooks(appId)}/${id}/test`);
      // A process stopped while posting leaves the delivery `sending`.
      await testRows(h.ctx, `UPDATE webhook_deliveries SET status = 'sending'`);
      await webhookDispatcher(h.ctx).drain();
      expect(receiver.events.map((e) => e.type)).toEqual(['webhook.test']);
    });

    test('the retention job prunes finished deliveries and attempts after retention.deliveries_days', async () => {
      const { id: appId } = await h.createApp({ id: 'hooks' });
      const { id } = await endpoint(appId);
      await h.admin('POST', `${hooks(appId)}/${id}/test`);
      await webhookDispatcher(h.ctx).drain();
      advance(15 * 24 * 60 * MINUTE);
      await retentionJob(h.ctx).run(h.clock.now());
      const n = async (table: string) => (await testRows<{ n: number }>(h.ctx, `SELECT count(*) AS n FROM ${table}`))[0]!.n;
      expect([await n('webhook_deliveries'), await n('webhook_attempts')]).toEqual([0, 0]);
    });
  });
});
