import { afterEach, expect, test } from 'bun:test';
import { until } from '../../../test-support/eventually';
import { notificationContent } from '../../../test-support/delivery-fixtures';
import { addDeviceOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { createHarness } from '../../../test-support/harness';
import { forEachDatabase } from '../../../test-support/databases';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { inlineStore } from '../outbox/outbox-store';
import { deliveriesRepository } from './delivery.repository';

let h: DeliveryHarness;
let engine: DeliveryEngine;
afterEach(async () => {
  await engine?.stop();
  h?.close();
});

forEachDatabase('the delivery worker’s wake-ups', (database) => {
  test('a wake-up heard while a claim that found nothing was under way is not slept through', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const [first, second] = [await addDeviceOn(h.ctx, 'demo', { platform: 'android' }), await addDeviceOn(h.ctx, 'demo', { platform: 'android' })];
    const inline = inlineStore(deliveriesRepository(h.ctx.db.sql));
    // Holds the answer of an empty claim until let go: as a claim whose snapshot came before the
    // commit of the deliveries it wakes up for (another instance's, on PostgreSQL).
    let held: { release: () => void; reached: boolean } | undefined;
    const store = {
      ...inline,
      async claim(now: number, limit: number) {
        const rows = await inline.claim(now, limit);
        if (rows.length === 0 && held && !held.reached) {
          held.reached = true;
          await new Promise<void>((resolve) => (held!.release = resolve));
        }
        return rows;
      },
    };
    // A poll far beyond the test's wait: only wake-ups make the worker look.
    engine = createDeliveryEngine(h.ctx, { pollMs: 3_600_000, store });
    engine.start();
    await queueOn(h.ctx, 'demo', notificationContent(), [first.id]);
    await until('the first is delivered', async () => (await deliveryRowsOn(h.ctx, `status = 'delivered'`)).length === 1);
    held = { release: () => {}, reached: false };
    // Woken with nothing to do: its empty claim waits; meanwhile the second is queued.
    h.ctx.coordination.wakeUps.notify('deliveries-queued');
    await until('the empty claim is held', () => held!.reached);
    await queueOn(h.ctx, 'demo', notificationContent(), [second.id]);
    held.release();
    await until('the second is delivered', async () => (await deliveryRowsOn(h.ctx, `status = 'delivered'`)).length === 2, { timeoutMs: 15_000 });
    expect((await deliveryRowsOn(h.ctx)).map((r) => r.status)).toEqual(['delivered', 'delivered']);
  }, 20_000);
});
