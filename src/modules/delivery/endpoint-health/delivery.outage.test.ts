import { afterEach, beforeAll, expect, test } from 'bun:test';
import { startApnsStandin, type ApnsStandin } from '../../../test-support/apns-standin';
import { apnsKey, notificationContent } from '../../../test-support/delivery-fixtures';
import { addDeviceOn, apnsRigOn, closeRigOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { forEachDatabase } from '../../../test-support/databases';
import { failInserts } from '../../../test-support/test-sql';
import type { TestDatabase } from '../../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { unlabelled } from '../../../test-support/metrics-text';
import { EndpointHealth, type EndpointRecord } from './endpoint-health';

let h: DeliveryHarness;
let database: TestDatabase;
let apns: ApnsStandin;
let engine: DeliveryEngine;
afterEach(() => closeRigOn({ engine, standin: apns, h }));

async function setup() {
  // Down after 3 failures in a row however fast they come (the fake clock does not move during a drain).
  ({ h, apns, engine } = await apnsRigOn(database, { engine: { health: { downAfterMs: 0 } } }));
}

const statuses = async () => {
  const counts: Record<string, number> = {};
  for (const r of await deliveryRowsOn(h.ctx)) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

forEachDatabase('delivery through an outage (channel health in the worker)', (db) => {
  beforeAll(() => (database = db));
  test('a channel.down webhook event that cannot be written (full disk) costs the event, not the outcomes or the worker', async () => {
    await setup();
    const hook = await h.admin('POST', '/api/admin/apps/demo/webhooks', { url: 'http://127.0.0.1:9/hook' });
    expect(hook.status).toBe(201);
    await failInserts(h.ctx, 'webhook_events');
    const devices = await Promise.all(Array.from({ length: 5 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    await apns.goAway();
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    await engine.drain();
    expect(await statuses()).toEqual({ pending: 2, held: 3 });
    expect((await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints).toMatchObject([{ state: 'down' }]);
    expect(h.logs.some((l) => l.includes('channel.down webhook event not written'))).toBe(true);
  });

  test('an unreachable provider takes the channel down: deliveries are held without spending attempts, one probe goes with backoff, and recovery drains at once', async () => {
    await setup();
    const devices = await Promise.all(Array.from({ length: 40 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    await apns.goAway();
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    await engine.drain();
    const reason = `apns channel down: ${apns.url}`;
    // The first two failures only made it degraded: due again within a second. The third took it down.
    const rows = await deliveryRowsOn(h.ctx);
    expect(rows.slice(0, 2).map((r) => [r.status, r.attempts, r.next_attempt_at - h.clock.now()])).toEqual([
      ['pending', 0, 500],
      ['pending', 0, 500],
    ]);
    expect(rows[0]!.reason).toStartWith('not sent: connection error');
    expect(rows.slice(2).map((r) => [r.status, r.attempts, r.reason])).toEqual(Array(38).fill(['held', 0, reason]));
    let channels = (await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints;
    expect(channels).toMatchObject([{ provider: 'apns', endpoint: apns.url, state: 'down', held: 38 }]);
    expect(channels[0].reason).toStartWith('not sent');
    expect(Date.parse(channels[0].nextProbeAt) - h.clock.now()).toBe(1000);
    // The name before the rename, kept one release: the same list under `channels`, marked deprecated in the API document.
    expect(await h.admin('GET', '/api/admin/apps/demo/channels')).toMatchObject({ status: 200, body: { channels } });
    const metrics = await h.request('GET', '/metrics');
    expect(unlabelled(metrics.body)).toContain(`islet_endpoint_health{app="demo",provider="apns",endpoint="${apns.url}",state="down"} 1`);
    expect(h.logs.some((l) => l.includes('"delivery channel down"'))).toBe(true);

    // Probes: one delivery at a time, at 1 s, then 2 s later, 4 s later… none spends an attempt.
    h.clock.advance(999);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts, r.reason])).toEqual(Array(40).fill(['held', 0, reason]));
    h.clock.advance(1);
    await engine.drain();
    channels = (await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints;
    expect(Date.parse(channels[0].nextProbeAt) - h.clock.now()).toBe(2000);
    h.clock.advance(2000);
    await engine.drain();
    channels = (await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints;
    expect(Date.parse(channels[0].nextProbeAt) - h.clock.now()).toBe(4000);
    expect((await deliveryRowsOn(h.ctx)).every((r) => r.status === 'held' && r.attempts === 0)).toBe(true);
    expect(apns.requests).toHaveLength(0);

    // New deliveries for the down channel wait with the others.
    const late = await addDeviceOn(h.ctx, 'demo', { platform: 'ios' });
    await queueOn(h.ctx, 'demo', notificationContent('late'), [late.id]);
    await engine.drain();
    expect(await statuses()).toEqual({ held: 41 });

    await apns.comeBack();
    h.clock.advance(4000);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.attempts])).toEqual(Array(41).fill(['delivered', 1]));
    expect(new Set(apns.requests.map((r) => r.token)).size).toBe(41);
    expect(apns.requests).toHaveLength(41);
    channels = (await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints;
    expect(channels).toMatchObject([{ state: 'healthy', reason: null, nextProbeAt: null, held: 0 }]);
    const recovered = h.logs.find((l) => l.includes('"delivery channel recovered"'));
    expect(JSON.parse(recovered!)).toMatchObject({ provider: 'apns', endpoint: apns.url, downSeconds: 7, waited: 40 });
  });

  /** Five iPhones queued a notification while APNs was gone: the channel went down with two pending and three held. */
  async function fiveQueuedWhileDown() {
    await setup();
    const devices = await Promise.all(Array.from({ length: 5 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    await apns.goAway();
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    await engine.drain();
    expect(await statuses()).toEqual({ pending: 2, held: 3 });
  }

  test('new credentials (another endpoint) release at once what was held for the old down channel, which is forgotten', async () => {
    await fiveQueuedWhileDown();
    expect((await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints).toMatchObject([{ endpoint: apns.url, state: 'down', held: 3 }]);

    // The operator points the app at a host that answers (the old one never will again).
    const key = apnsKey();
    const fixed = await startApnsStandin({ keys: [key], clock: h.clock });
    try {
      const put = await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: fixed.url, ca: fixed.ca });
      expect(put.status).toBe(200);
      expect((await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints).toEqual([]);
      expect((await deliveryRowsOn(h.ctx)).filter((r) => r.status === 'held')).toEqual([]);
      expect((await deliveryRowsOn(h.ctx)).filter((r) => r.next_attempt_at === h.clock.now())).toHaveLength(3);
      h.clock.advance(500);
      await engine.drain();
      expect(await statuses()).toEqual({ delivered: 5 });
      expect(fixed.requests).toHaveLength(5);
      expect(apns.requests).toHaveLength(0);
    } finally {
      await fixed.close();
    }
  });

  test('removing the credentials releases what was held for the down channel to the simulator; the other provider is left alone', async () => {
    await fiveQueuedWhileDown();
    expect((await h.admin('DELETE', '/api/admin/apps/demo/fcm')).status).toBe(200);
    expect(await statuses()).toEqual({ pending: 2, held: 3 });
    expect((await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints).toMatchObject([{ provider: 'apns', state: 'down' }]);

    expect((await h.admin('DELETE', '/api/admin/apps/demo/apns')).status).toBe(200);
    expect((await h.admin('GET', '/api/admin/apps/demo/endpoints')).body.endpoints).toEqual([]);
    h.clock.advance(500);
    await engine.drain();
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.status, r.provider])).toEqual(Array(5).fill(['delivered', 'simulator']));
  });

  // SQLite only: there endpoint health lives in the process and a restart starts without it. On
  // PostgreSQL it is shared by the instances and outlives one (coordination/postgres/shared-state.e2e.test.ts).
  if (db === 'sqlite')
    test('a restart releases what a previous process held for a down channel', async () => {
      await setup();
      const devices = await Promise.all(Array.from({ length: 5 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
      await apns.goAway();
      await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
      await engine.drain();
      expect(await statuses()).toEqual({ held: 3, pending: 2 });
      await engine.stop();
      await apns.comeBack();
      h.clock.advance(500);
  
      // A new process: its channel health starts empty (healthy).
      const fresh = new EndpointHealth(h.ctx.clock, h.ctx.logger, h.ctx.coordination.endpointHealth<EndpointRecord>());
      const next = createDeliveryEngine({ ...h.ctx, endpointHealth: fresh }, { random: () => 0.5, health: { downAfterMs: 0 } });
      next.start();
      try {
        while ((await statuses()).delivered !== 5) await new Promise((r) => setTimeout(r, 10));
      } finally {
        await next.stop();
      }
      expect((await deliveryRowsOn(h.ctx)).map((r) => r.attempts)).toEqual([1, 1, 1, 1, 1]);
    });
});
