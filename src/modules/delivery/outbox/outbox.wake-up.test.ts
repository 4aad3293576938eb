import { afterEach, expect, test } from 'bun:test';
import { forEachDatabase } from '../../../test-support/databases';
import { notificationContent } from '../../../test-support/delivery-fixtures';
import { addDeviceOn, deliveryRowsOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { createHarness, type TestDatabase } from '../../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { SimulatorTransport } from '../providers/simulator.transport';
import { appsRepository } from '../../apps/apps.repository';
import { tokensRepository } from '../../tokens/tokens.repository';

let h: DeliveryHarness;
let engine: DeliveryEngine;
afterEach(async () => {
  await engine?.stop();
  h?.close();
});

/** The worker claims inline, idle until woken (its poll is a minute away). */
async function idleWorker(database: TestDatabase) {
  h = await createHarness({ database });
  await h.createApp({ id: 'demo' });
  const device = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
  const simulator = new SimulatorTransport();
  engine = createDeliveryEngine(h.ctx, { transports: { simulator }, pollMs: 60_000 });
  engine.start();
  await engine.drain();
  const [token] = await tokensRepository(h.ctx.db.sql).ofDevice(device.id);
  /** A unit of work that queues one notification, then does more work in the same transaction. */
  const queueThen = (after: () => void) =>
    h.ctx.db.write(async (tx) => {
      await h.ctx.outbox.enqueue(tx, { appId: 'demo', content: notificationContent(), targets: [{ deviceId: device.id, tokenId: token!.id }], now: h.ctx.clock.now() });
      for (let i = 0; i < 50; i++) await appsRepository(tx).find('demo');
      after();
    });
  return { simulator, queueThen };
}

forEachDatabase('queueing wakes the worker once its unit of work commits', (database) => {
  test('a unit of work that queues a push and then fails sends nothing: the worker is woken only after COMMIT', async () => {
    const { simulator, queueThen } = await idleWorker(database);
    const failed = queueThen(() => {
      throw new Error('refused after queueing');
    });
    await expect(failed).rejects.toThrow('refused after queueing');
    await Bun.sleep(200);
    expect({ sent: simulator.sent, rows: (await deliveryRowsOn(h.ctx)).length }).toEqual({ sent: 0, rows: 0 });
  });

  test('a unit of work that queues a push and commits wakes the worker, which sends it without waiting for its poll', async () => {
    const { simulator, queueThen } = await idleWorker(database);
    await queueThen(() => {});
    const delivered = async () => (await deliveryRowsOn(h.ctx, `status = 'delivered'`)).length;
    for (let i = 0; i < 100 && (await delivered()) === 0; i++) await Bun.sleep(20);
    expect({ sent: simulator.sent, delivered: await delivered() }).toEqual({ sent: 1, delivered: 1 });
  });
});
