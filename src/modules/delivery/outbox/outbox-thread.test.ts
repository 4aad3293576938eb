import { afterEach, describe, expect, test } from 'bun:test';
import { until } from '../../../test-support/eventually';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { addDevice, addDevices, deliveryRows, notificationContent, queue } from '../../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { inlineStore } from './outbox-store';
import { OutboxThread } from './outbox-thread.client';
import { deliveriesRepository } from '../worker/delivery.repository';

/** Within the tests' own 20 to 30 s. */
const WAIT = { timeoutMs: 18_000, intervalMs: 20 };

let h: Harness;
let engine: DeliveryEngine | undefined;
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  h?.close();
});

/** An app on the simulator with `n` Android devices, each queued one notification. */
async function queued(n: number) {
  h = await createHarness();
  await h.createApp({ id: 'demo' });
  const devices = await addDevices(h.ctx, 'demo', n, { platform: 'android' });
  await queue(h.ctx, 'demo', notificationContent(), devices.map((d) => d.id));
}

const thread = (database: { path: string; maxSizeMb?: number }) => new OutboxThread(inlineStore(deliveriesRepository(h.ctx.db.sql)), database, h.ctx.logger);

describe('the outbox thread', () => {
  test('claims and records on its own connection: every delivery goes once, with one attempt, as inline', async () => {
    await queued(500);
    const store = thread({ path: h.dbPath });
    expect(await store.start()).toBe(true);
    engine = createDeliveryEngine(h.ctx, { store, batchSize: 50, flushSize: 50 });
    expect(await engine.drain()).toBe(500);
    const rows = deliveryRows(h.ctx);
    expect(rows.filter((r) => r.status === 'delivered')).toHaveLength(500);
    expect(rows.every((r) => r.attempts === 1 && r.provider === 'simulator')).toBe(true);
    expect(store.threaded).toBe(true);
  });

  test('starts with the first claim that finds work; until then the outbox runs inline', async () => {
    await queued(300);
    const store = thread({ path: h.dbPath });
    engine = createDeliveryEngine(h.ctx, { store, batchSize: 100 });
    expect(store.threaded).toBe(false);
    await engine.drain();
    await until('the outbox thread runs', () => store.threaded, WAIT);
    expect(deliveryRows(h.ctx, `status = 'delivered'`)).toHaveLength(300);
  });

  test("a full disk seen by the thread's connection is a storage failure: outcomes are kept, nothing is claimed meanwhile, all go once space returns", async () => {
    await queued(300);
    const client = h.ctx.db.sqlite.$client;
    client.exec('CREATE TABLE filler (b BLOB)');
    // Room for a filler of 200 pages (800 KB), which then takes every free page.
    client.exec(`PRAGMA max_page_count = ${client.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count + 200}`);
    try {
      for (;;) client.query('INSERT INTO filler VALUES (zeroblob(1000))').run();
    } catch (e) {
      expect((e as { code: string }).code).toBe('SQLITE_FULL');
    }
    // Below the file's size: the thread's connection may not grow it either (only this limit is its own).
    const store = thread({ path: h.dbPath, maxSizeMb: 0.01 });
    expect(await store.start()).toBe(true);
    engine = createDeliveryEngine(h.ctx, { store, pollMs: 10 });
    engine.start();
    await until('the failing writes are logged', () => h.logs.some((l) => l.includes('database writes fail')), WAIT);
    expect(h.logs.some((l) => l.includes('SQLITE_FULL'))).toBe(true);
    expect((await h.request('GET', '/readyz')).status).toBe(503);
    expect(deliveryRows(h.ctx).every((r) => ['pending', 'sending'].includes(r.status))).toBe(true);

    // Space returns: the filler's pages are free again for the thread to reuse.
    client.exec('DELETE FROM filler');
    await until('all 300 are delivered', () => deliveryRows(h.ctx, `status = 'delivered'`).length === 300, WAIT);
    // The thread commits the rows before the main thread hears of it and logs the recovery.
    await until('the writes working again are logged', () => h.logs.some((l) => l.includes('database writes work again')), WAIT);
    expect(store.threaded).toBe(true);
  }, 20_000);

  test('a thread that cannot start leaves the outbox inline, says why, and loses nothing', async () => {
    await queued(200);
    // A folder where the database file should be: the thread cannot open it.
    const path = join(h.dbPath, '..', 'not-a-file');
    mkdirSync(path);
    const store = thread({ path });
    expect(await store.start()).toBe(false);
    expect(h.logs.some((l) => l.includes('the outbox thread failed'))).toBe(true);
    engine = createDeliveryEngine(h.ctx, { store });
    expect(await engine.drain()).toBe(200);
    expect(deliveryRows(h.ctx, `status = 'delivered'`)).toHaveLength(200);
  }, 30_000);
});
