import { afterEach, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { openSqliteStore } from '../../db/sqlite/store';
import { startServer } from '../../server';
import { startApnsStandin, type ApnsStandin } from '../../test-support/apns-standin';
import { apnsKey, notificationContent } from '../../test-support/delivery-fixtures';
import { addDeviceOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../test-support/delivery-on';
import { forEachDatabase } from '../../test-support/databases';
import { until } from '../../test-support/eventually';
import { createHarness, type TestDatabase } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { createDeliveryEngine, type DeliveryEngine } from './delivery.engine';
import { unlabelled } from '../../test-support/metrics-text';
import { deliveriesRepository } from './worker/delivery.repository';

let h: DeliveryHarness;
let apns: ApnsStandin | undefined;
const engines: DeliveryEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.stop().catch(() => {});
  await apns?.close();
  apns = undefined;
  h?.close();
});

async function setupApns(database: TestDatabase = 'sqlite') {
  h = await createHarness({ database });
  const key = apnsKey();
  apns = await startApnsStandin({ keys: [key], clock: h.clock });
  await h.createApp({ id: 'demo' });
  await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
  return apns;
}

const count = async (status: string) => (await deliveryRowsOn(h.ctx, `status = '${status}'`)).length;

// SQLite only: a second connection to the same file stands in for the killed process (on PostgreSQL a
// dead instance's claims wait for its lease: db/postgres/repositories/claims.test.ts, cluster.e2e.test.ts).
describe('durability of the outbox (SQLite)', () => {
  test('a process killed mid-batch delivers everything after restart', async () => {
    const apns = await setupApns();
    const devices = await Promise.all(Array.from({ length: 300 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));

    // Process A: its own database connection; APNs never answers it before it dies.
    const ctxA: AppContext = { ...h.ctx, db: openSqliteStore(h.dbPath, { logger: h.ctx.logger }) };
    const a = createDeliveryEngine(ctxA, { batchSize: 100, maxInFlight: 100 });
    apns.respond(() => new Promise(() => {}));
    const drainA = a.drain().catch(() => 0);
    await until('A sent its first batch', () => apns.requests.length === 100);
    expect([await count('sending'), await count('pending')]).toEqual([100, 200]);
    // Killed: nothing more reaches the database from A.
    await ctxA.db.close();
    apns.respond(undefined);

    // Process B starts on the same file.
    const b = createDeliveryEngine(h.ctx);
    engines.push(b);
    b.start();
    await until('B delivered all 300', async () => (await count('delivered')) === 300, { timeoutMs: 25_000 });
    const afterRestart = new Set(apns.requests.slice(100).map((r) => r.token));
    expect(afterRestart.size).toBe(300);
    expect((await count('sending')) + (await count('pending'))).toBe(0);

    await a.transports.apns.close();
    await drainA;
    // 300 deliveries through two engines take ~4.5 s of a busy 2-core machine: Bun's 5 s default is too tight.
  }, 30_000);
});

forEachDatabase('durability of the outbox', (database) => {
  test('stopping lets sends in flight finish and records them; what cannot finish goes back to the queue', async () => {
    const apns = await setupApns(database);
    const devices = await Promise.all(Array.from({ length: 20 }, () => addDeviceOn(h.ctx, 'demo', { platform: 'ios' })));
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    apns.respond((req) => (req.token === devices[0]!.token ? new Promise(() => {}) : gate.then(() => undefined)));
    await queueOn(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    const engine = createDeliveryEngine(h.ctx, { stopTimeoutMs: 300 });
    engine.start();
    await until('all 20 are in flight', () => apns.requests.length === 20);

    const stopped = engine.stop();
    release();
    await stopped;
    expect(await count('delivered')).toBe(19);
    // The one that never answered: connection closed at the deadline, outcome unknown, due again
    // without an attempt counted.
    const [stuck] = await deliveryRowsOn(h.ctx, `device_id = '${devices[0]!.id}'`);
    expect([stuck!.status, stuck!.attempts]).toEqual(['pending', 0]);
    expect(stuck!.reason).toStartWith('outcome unknown');
    expect(await count('sending')).toBe(0);
  });

  test('a worker started without the server recovers in its loop: a failed recovery is logged and tried again, then it delivers', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    await queueOn(h.ctx, 'demo', notificationContent('queued before start'), [pixel.id]);
    const deliveries = deliveriesRepository(h.ctx.db.sql);
    const reset = deliveries.recoverSending.bind(deliveries);
    let attempts = 0;
    deliveries.recoverSending = (now) => (++attempts === 1 ? Promise.reject(new Error('disk I/O error')) : reset(now));
    const engine = createDeliveryEngine(h.ctx, { pollMs: 10 });
    engines.push(engine);
    engine.start();
    await until('the worker delivered', async () => (await count('delivered')) === 1);
    expect(attempts).toBe(2);
    expect(h.logs.some((l) => l.includes('delivery worker failed') && l.includes('disk I/O error'))).toBe(true);
  });

  test('the server starts the engine after migrations, resends what a previous process left, and stops it before closing the database', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    await queueOn(h.ctx, 'demo', notificationContent('queued before start'), [pixel.id]);
    await queueOn(h.ctx, 'demo', notificationContent('claimed by a process that died'), [pixel.id]);
    await testRows(h.ctx, `UPDATE deliveries SET status = 'sending' WHERE id = (SELECT max(id) FROM deliveries)`);
    h.ctx.config.server.host = '127.0.0.1';
    h.ctx.config.server.port = 0;
    const server = await startServer(h.ctx);
    try {
      await until('the server delivered both', async () => (await count('delivered')) === 2);
      const metrics = unlabelled(await (await fetch(`${server.url}/metrics`)).text());
      expect(metrics).toContain('islet_deliveries_total{app="demo",provider="simulator",kind="notification",outcome="delivered"} 2');
    } finally {
      await server.stop();
    }
    await expect(testRows(h.ctx, 'SELECT 1 AS one')).rejects.toThrow();
  });
});
