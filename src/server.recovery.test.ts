import { afterEach, expect, test } from 'bun:test';
import { createHarness, type Harness } from './test-support/harness';
import { startServer } from './server';
import { idempotencyRepository } from './modules/idempotency/idempotency.repository';
import { webhooksRepository } from './modules/webhooks/webhooks.repository';
import { deliveriesRepository } from './modules/delivery/worker/delivery.repository';

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

/** A harness whose server would listen on a free loopback port. */
async function harness(): Promise<Harness> {
  h = await createHarness();
  h.ctx.config.server.host = '127.0.0.1';
  h.ctx.config.server.port = 0;
  return h;
}

// Before the fix the recoveries ran in background loops nothing awaited: startServer resolved, the
// server listened, and the rejection then ended the process with a stack trace.
test('a failed start-up recovery of deliveries stops the start before it listens, with its message', async () => {
  const { ctx } = await harness();
  deliveriesRepository(ctx.db.sql).recoverSending = () => Promise.reject(new Error('disk I/O error'));
  await expect(startServer(ctx)).rejects.toThrow('start-up recovery failed: disk I/O error');
});

test('a failed start-up recovery of webhook deliveries stops the start before it listens, with its message', async () => {
  const { ctx } = await harness();
  webhooksRepository(ctx.db.sql).recoverSending = () => Promise.reject(new Error('database is locked'));
  await expect(startServer(ctx)).rejects.toThrow('start-up recovery failed: database is locked');
});

test('a failed release of running Idempotency-Keys stops the start the same way', async () => {
  const { ctx } = await harness();
  idempotencyRepository(ctx.db.sql).releaseAllRunning = () => Promise.reject(new Error('disk I/O error'));
  await expect(startServer(ctx)).rejects.toThrow('start-up recovery failed: disk I/O error');
});

test('the server recovers both queues before it answers its first request', async () => {
  const { ctx } = await harness();
  const recovered: string[] = [];
  const deliveries = deliveriesRepository(ctx.db.sql);
  const webhooks = webhooksRepository(ctx.db.sql);
  const [deliveriesReset, webhooksReset] = [deliveries.recoverSending.bind(deliveries), webhooks.recoverSending.bind(webhooks)];
  deliveries.recoverSending = (now) => (recovered.push('deliveries'), deliveriesReset(now));
  webhooks.recoverSending = (now) => (recovered.push('webhook deliveries'), webhooksReset(now));
  const server = await startServer(ctx);
  try {
    expect(recovered).toEqual(['deliveries', 'webhook deliveries']);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  } finally {
    await server.stop();
    h = undefined;
  }
});
