import { afterEach, describe, expect, test } from 'bun:test';
import { until } from '../../../test-support/eventually';
import { addDevice, addDevices, deliveryRows, notificationContent, queue } from '../../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';

let h: Harness;
let engine: DeliveryEngine;
afterEach(async () => {
  await engine?.stop();
  h?.close();
});

describe('the delivery worker on a full disk', () => {
  test('keeps its outcomes, claims nothing more and does not spin while writes fail; delivers everything once space returns', async () => {
    h = await createHarness();
    await h.createApp({ id: 'demo' });
    const devices = await addDevices(h.ctx, 'demo', 300, { platform: 'android' });
    await queue(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
    // Full: the file may not grow, and a filler takes every free page.
    const client = h.ctx.db.sqlite.$client;
    client.exec('CREATE TABLE filler (b BLOB)');
    client.exec(`PRAGMA max_page_count = ${client.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count}`);
    try {
      for (;;) client.query('INSERT INTO filler VALUES (zeroblob(1000))').run();
    } catch (e) {
      expect((e as { code: string }).code).toBe('SQLITE_FULL');
    }

    engine = createDeliveryEngine(h.ctx, { pollMs: 10 });
    engine.start();
    await new Promise((r) => setTimeout(r, 1500));
    const failures = h.logs.filter((l) => l.includes('writing delivery outcomes failed') || l.includes('delivery worker failed'));
    // One line when it starts failing, not one per poll (150 polls at 10 ms).
    expect(failures.length).toBeLessThanOrEqual(2);
    expect(h.logs.filter((l) => l.includes('database writes fail')).length).toBe(1);
    const rows = deliveryRows(h.ctx);
    expect(rows).toHaveLength(300);
    expect(rows.every((r) => ['pending', 'sending'].includes(r.status))).toBe(true);
    expect((await h.request('GET', '/readyz')).status).toBe(503);

    // Space returns (the limit is this connection's: a larger disk, as it were).
    client.exec('PRAGMA max_page_count = 1000000');
    await until('all 300 are delivered', () => deliveryRows(h.ctx, `status = 'delivered'`).length === 300, { timeoutMs: 25_000, intervalMs: 20 });
    expect(h.logs.some((l) => l.includes('database writes work again'))).toBe(true);
    expect((await h.request('GET', '/readyz')).status).toBe(200);
  }, 30_000);
});
