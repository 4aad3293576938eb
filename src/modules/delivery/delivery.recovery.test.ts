import { afterEach, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { openSqliteStore } from '../../db/sqlite/store';
import { startServer } from '../../server';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { addDevice, addDevices, apnsKey, deliveryRows, notificationContent, queue } from '../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from './delivery.engine';
import { unlabelled } from '../../test-support/metrics-text';

let h: Harness;
let apns: ApnsStandin | undefined;
const engines: DeliveryEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.stop().catch(() => {});
  await apns?.close();
  apns = undefined;
  h?.close();
});

/** Waits (real time) until the condition holds; a test fails by its own timeout otherwise. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

async function setupApns() {
  h = await createHarness();
  const key = apnsKey();
  apns = await startApnsStandin({ keys: [key], clock: h.clock });
  await h.createApp({ id: 'demo' });
  await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
  return apns;
}

const count = (status: string) => deliveryRows(h.ctx, `status = '${status}'`).length;

describe('durability of the outbox', () => {
  test('a process killed mid-batch delivers everything after restart', async () => {
    const apns = await setupApns();
    const devices = await addDevices(h.ctx, 'demo', 300, { platform: 'ios' });
    await queue(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));

    // Process A: its own database connection; APNs never answers it before it dies.
    const ctxA: AppContext = { ...h.ctx, db: openSqliteStore(h.dbPath, { logger: h.ctx.logger }) };
    const a = createDeliveryEngine(ctxA, { batchSize: 100, maxInFlight: 100 });
    apns.respond(() => new Promise(() => {}));
    const drainA = a.drain().catch(() => 0);
    await until(() => apns.requests.length === 100);
    expect([count('sending'), count('pending')]).toEqual([100, 200]);
    // Killed: nothing more reaches the database from A.
    await ctxA.db.close();
    apns.respond(undefined);

    // Process B starts on the same file.
    const b = createDeliveryEngine(h.ctx);
    engines.push(b);
    b.start();
    await until(() => count('delivered') === 300);
    const afterRestart = new Set(apns.requests.slice(100).map((r) => r.token));
    expect(afterRestart.size).toBe(300);
    expect(count('sending') + count('pending')).toBe(0);

    await a.transports.apns.close();
    await drainA;
    // 300 deliveries through two engines take ~4.5 s of a busy 2-core machine: Bun's 5 s default is too tight.
  }, 30_000);

  test('stopping lets sends in flight finish and records them; what cannot finish goes back to the queue', async () => {
    const apns = await setupApns();
    const devices = await addDevices(h.ctx, 'demo', 20, { platform: 'ios' });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    apns.respond((req) => (req.token === devices[0]!.token ? new Promise(() => {}) : gate.then(() => undefined)));
    await queue(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    const engine = createDeliveryEngine(h.ctx, { stopTimeoutMs: 300 });
    engine.start();
    await until(() => apns.requests.length === 20);

    const stopped = engine.stop();
    release();
    await stopped;
    expect(count('delivered')).toBe(19);
    // The one that never answered: connection closed at the deadline, outcome unknown, due again
    // without an attempt counted.
    const [stuck] = deliveryRows(h.ctx, `device_id = '${devices[0]!.id}'`);
    expect([stuck!.status, stuck!.attempts]).toEqual(['pending', 0]);
    expect(stuck!.reason).toStartWith('outcome unknown');
    expect(count('sending')).toBe(0);
  });

  test('a worker started without the server recovers in its loop: a failed recovery is logged and tried again, then it delivers', async () => {
    h = await createHarness();
    await h.createApp({ id: 'demo' });
    const pixel = await addDevice(h.ctx, 'demo', { platform: 'android' });
    await queue(h.ctx, 'demo', notificationContent('queued before start'), [pixel.id]);
    const { deliveries } = h.ctx.db.repos;
    const reset = deliveries.recoverSending.bind(deliveries);
    let attempts = 0;
    deliveries.recoverSending = (now) => (++attempts === 1 ? Promise.reject(new Error('disk I/O error')) : reset(now));
    const engine = createDeliveryEngine(h.ctx, { pollMs: 10 });
    engines.push(engine);
    engine.start();
    await until(() => count('delivered') === 1);
    expect(attempts).toBe(2);
    expect(h.logs.some((l) => l.includes('delivery worker failed') && l.includes('disk I/O error'))).toBe(true);
  });

  test('the server starts the engine after migrations, resends what a previous process left, and stops it before closing the database', async () => {
    h = await createHarness();
    await h.createApp({ id: 'demo' });
    const pixel = await addDevice(h.ctx, 'demo', { platform: 'android' });
    await queue(h.ctx, 'demo', notificationContent('queued before start'), [pixel.id]);
    await queue(h.ctx, 'demo', notificationContent('claimed by a process that died'), [pixel.id]);
    h.ctx.db.sqlite.$client.query(`UPDATE deliveries SET status = 'sending' WHERE id = (SELECT max(id) FROM deliveries)`).run();
    h.ctx.config.server.host = '127.0.0.1';
    h.ctx.config.server.port = 0;
    const server = await startServer(h.ctx);
    try {
      await until(() => count('delivered') === 2);
      const metrics = unlabelled(await (await fetch(`${server.url}/metrics`)).text());
      expect(metrics).toContain('islet_deliveries_total{app="demo",provider="simulator",kind="notification",outcome="delivered"} 2');
    } finally {
      await server.stop();
    }
    expect(() => h.ctx.db.sqlite.$client.query('SELECT 1').get()).toThrow();
  });
});
