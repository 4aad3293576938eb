import { afterEach, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../test-support/harness';
import { webhookDispatcher } from './webhooks.dispatcher';

let h: Harness | undefined;
afterEach(() => h?.close());

test('a failed start-up recovery of webhook deliveries fails that run only: the next run recovers, then claims', async () => {
  h = await createHarness();
  const { webhooks } = h.ctx.db.repos;
  const reset = webhooks.recoverSending.bind(webhooks);
  let attempts = 0;
  webhooks.recoverSending = (now) => (++attempts === 1 ? Promise.reject(new Error('database is locked')) : reset(now));
  // Built before the failure is seen: a recovery started at construction would be a rejection nobody awaits.
  const dispatch = webhookDispatcher(h.ctx);
  expect(attempts).toBe(0);
  await expect(dispatch.run(h.clock.now())).rejects.toThrow('database is locked');
  await dispatch.run(h.clock.now());
  await dispatch.run(h.clock.now());
  expect(attempts).toBe(2);
});
