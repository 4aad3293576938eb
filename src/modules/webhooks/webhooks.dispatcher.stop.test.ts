import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { FakeClock } from '../../lib/clock';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { POSTS_PER_ENDPOINT, webhookDispatcher } from './webhooks.dispatcher';
import { until } from '../../test-support/eventually';
import { webhookEventsRepository } from './webhook-events.repository';

forEachDatabase('webhook dispatcher stop', (database) => {
  let h: Harness<AppContext> | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    receiver?.release();
    await receiver?.close();
    await h?.close();
  });

  test('a dispatcher told to stop finishes and records its posts in flight and claims no more: the rest stays queued', async () => {
    h = await createHarness({ database, clock: new FakeClock(Date.now()) });
    receiver = await startWebhookReceiver();
    const { id: appId } = await h.createApp();
    const created = await h.admin('POST', `/api/admin/apps/${appId}/webhooks`, { url: receiver.url });
    expect(created.status).toBe(201);
    receiver.secret = created.body.secret;
    const due = POSTS_PER_ENDPOINT + 2;
    for (let i = 0; i < due; i++) await h.ctx.db.write((tx) => webhookEventsRepository(tx).writeEvent(appId, 'live_activity.started', { i }, [created.body.id], h!.clock.now()));

    const dispatch = webhookDispatcher(h.ctx);
    receiver.hold();
    const round = dispatch.drain();
    await until('the receiver holds the endpoint’s posts open', () => receiver!.open >= POSTS_PER_ENDPOINT);
    expect(receiver.open).toBe(POSTS_PER_ENDPOINT);
    const stopped = dispatch.stop();
    receiver.release();
    await Promise.all([round, stopped]);
    expect(receiver.events).toHaveLength(POSTS_PER_ENDPOINT);
    const rows = await testRows<{ status: string; n: number }>(h.ctx, 'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status ORDER BY status');
    expect(rows).toEqual([
      { status: 'delivered', n: POSTS_PER_ENDPOINT },
      { status: 'pending', n: due - POSTS_PER_ENDPOINT },
    ]);
  }, 30_000);
});
