import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { FakeClock } from '../../lib/clock';
import { silentLogger } from '../../lib/logger';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { Scheduler } from '../scheduler/scheduler';
import { POSTS_PER_ENDPOINT, webhookDispatcher } from './webhooks.dispatcher';
import { until } from '../../test-support/eventually';
import { webhookEventsRepository } from './webhook-events.repository';

forEachDatabase('webhook dispatcher and the scheduler leadership', (database) => {
  let h: Harness<AppContext> | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    receiver?.release();
    await receiver?.close();
    await h?.close();
  });

  test('a run whose instance lost the leadership finishes its posts and claims no more: the rest waits for the new leader', async () => {
    h = await createHarness({ database, clock: new FakeClock(Date.now()) });
    receiver = await startWebhookReceiver();
    const { id: appId } = await h.createApp();
    const created = await h.admin('POST', `/api/admin/apps/${appId}/webhooks`, { url: receiver.url });
    expect(created.status).toBe(201);
    receiver.secret = created.body.secret;
    const due = POSTS_PER_ENDPOINT + 2;
    for (let i = 0; i < due; i++) await h.ctx.db.write((tx) => webhookEventsRepository(tx).writeEvent(appId, 'live_activity.started', { i }, [created.body.id], h!.clock.now()));

    let leading = true;
    const leadership = { isLeader: async () => leading, current: () => leading, release: async () => {} };
    const scheduler = new Scheduler([webhookDispatcher(h.ctx)], h.clock, silentLogger, undefined, undefined, leadership);
    receiver.hold();
    const run = scheduler.tick();
    await until('the receiver holds the endpoint’s posts open', () => receiver!.open >= POSTS_PER_ENDPOINT);
    expect(receiver.open).toBe(POSTS_PER_ENDPOINT);
    leading = false;
    await scheduler.tick();
    receiver.release();
    await run;
    expect(receiver.events).toHaveLength(POSTS_PER_ENDPOINT);
    const n = (await testRows<{ n: number }>(h.ctx, "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'"))[0]?.n;
    expect(n).toBe(due - POSTS_PER_ENDPOINT);
  }, 30_000);
});
