import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { FakeClock } from '../../lib/clock';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { STALE_CLAIM_MS, webhookDispatcher } from './webhooks.dispatcher';
import { webhooksRepository } from './webhooks.repository';

let h: Harness<AppContext> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

forEachDatabase('webhook-dispatcher start-up recovery', (database) => {
  test('a failed start-up recovery of webhook deliveries fails that run only: the next run recovers, then claims', async () => {
    h = await createHarness({ database });
    const webhooks = webhooksRepository(h.ctx.db.sql);
    const reset = webhooks.recoverSending.bind(webhooks);
    let attempts = 0;
    webhooks.recoverSending = (now) => (++attempts === 1 ? Promise.reject(new Error('database is locked')) : reset(now));
    // Built before the failure is seen: a recovery started at construction would be a rejection nobody awaits.
    const dispatch = webhookDispatcher(h.ctx);
    expect(attempts).toBe(0);
    await expect(dispatch.drain()).rejects.toThrow('database is locked');
    await dispatch.drain();
    await dispatch.drain();
    expect(attempts).toBe(2);
  });
});

forEachDatabase('webhook-dispatcher stale claims', (database) => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  test(
    'a delivery left sending by a claim whose answer was lost is posted again once it is stale, not before',
    async () => {
      // The clock starts far enough back that the post after the jump is signed within the
      // receiver's timestamp tolerance (it checks against real time).
      h = await createHarness({ database, clock: new FakeClock(Date.now() - STALE_CLAIM_MS - 60_000) });
      receiver = await startWebhookReceiver();
      await h.createApp({ id: 'w1' });
      const created = await h.admin('POST', '/api/admin/apps/w1/webhooks', { url: receiver.url, events: ['live_activity.started'] });
      expect(created.status).toBe(201);
      receiver.secret = created.body.secret;
      expect((await h.service('w1', 'POST', '/api/apps/w1/devices', { endUserId: 'u1', platform: 'android', token: 'tok-1' })).status).toBe(200);
      const start = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' } };
      expect((await h.service('w1', 'POST', '/api/apps/w1/live-activities', start)).status).toBe(200);

      const dispatch = webhookDispatcher(h.ctx);
      await dispatch.recover();
      // Claimed, and the answer never came back: nobody posts it while it is fresh…
      expect(await webhooksRepository(h.ctx.db.sql).claim(h.clock.now(), 10)).toHaveLength(1);
      await dispatch.drain();
      expect(receiver.events).toHaveLength(0);
      // …and once it has been sending longer than any post can take, the next run sends it.
      h.clock.advance(STALE_CLAIM_MS + 1000);
      await dispatch.drain();
      expect(receiver.events.map((e) => e.type)).toEqual(['live_activity.started']);
    },
    30_000,
  );
});
