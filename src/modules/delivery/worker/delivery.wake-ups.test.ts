import { afterEach, describe, expect, test } from 'bun:test';
import { addDevice, deliveryRows, notificationContent, queue } from '../../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { inlineStore } from '../outbox/outbox-store';

let h: Harness;
let engine: DeliveryEngine;
afterEach(async () => {
  await engine?.stop();
  h?.close();
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

describe('the delivery worker’s wake-ups', () => {
  test('a wake-up heard while a claim that found nothing was under way is not slept through', async () => {
    h = await createHarness();
    await h.createApp({ id: 'demo' });
    const [first, second] = [await addDevice(h.ctx, 'demo', { platform: 'android' }), await addDevice(h.ctx, 'demo', { platform: 'android' })];
    const inline = inlineStore(h.ctx.db.repos.deliveries);
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
    await queue(h.ctx, 'demo', notificationContent(), [first.id]);
    await until(() => deliveryRows(h.ctx, `status = 'delivered'`).length === 1);
    held = { release: () => {}, reached: false };
    // Woken with nothing to do: its empty claim waits; meanwhile the second is queued.
    h.ctx.coordination.wakeUps.notify('deliveries-queued');
    await until(() => held!.reached);
    await queue(h.ctx, 'demo', notificationContent(), [second.id]);
    held.release();
    await until(() => deliveryRows(h.ctx, `status = 'delivered'`).length === 2);
    expect(deliveryRows(h.ctx).map((r) => r.status)).toEqual(['delivered', 'delivered']);
  }, 20_000);
});
