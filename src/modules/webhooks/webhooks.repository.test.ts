import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { webhooksRepository } from './webhooks.repository';

/*
 * The webhooks repository's one implementation (webhooks.ts) on each database: an attempt is
 * recorded only while its delivery is still claimed, so a post whose delivery was put back as
 * stale meanwhile writes nothing, and the next claim's attempt is the one recorded.
 */
forEachDatabase('webhooks repository', (database) => {
  let h: Harness<AppContext> | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  test('a late attempt of a delivery put back as stale records nothing; the attempt of its next claim records once', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const hook = await h.admin('POST', '/api/admin/apps/a1/webhooks', { url: 'http://127.0.0.1:9/hook' });
    expect((await h.admin('POST', `/api/admin/apps/a1/webhooks/${hook.body.id}/test`)).status).toBeLessThan(300);
    const webhooks = webhooksRepository(h.ctx.db.sql);
    const now = h.clock.now();
    const [first] = await webhooks.claim(now, 10);
    expect(first?.endpointId).toBe(hook.body.id);
    expect(await webhooks.claim(now, 10)).toEqual([]);
    // The post outlives the claim: the delivery is put back as stale before its attempt is recorded.
    expect(await webhooks.releaseStale(now + 1, now + 1)).toBe(1);

    const state = async () => ({
      delivery: await testRows<{ status: string; attempts: number }>(h!.ctx, 'SELECT status, attempts FROM webhook_deliveries'),
      attempts: (await testRows<{ n: number }>(h!.ctx, 'SELECT count(*) AS n FROM webhook_attempts'))[0]!.n,
    });
    const result = { ok: true, status: 204, error: null, durationMs: 1, at: now + 4 };
    await webhooks.record(first!, result, { status: 'delivered', nextAttemptAt: now + 4 });
    expect(await state()).toEqual({ delivery: [{ status: 'pending', attempts: 0 }], attempts: 0 });

    const [again] = await webhooks.claim(now + 5, 10);
    expect(again?.id).toBe(first!.id);
    await webhooks.record(again!, result, { status: 'delivered', nextAttemptAt: now + 5 });
    expect(await state()).toEqual({ delivery: [{ status: 'delivered', attempts: 1 }], attempts: 1 });
    expect((await webhooks.attempts(hook.body.id, 10, 0)).total).toBe(1);
  });
});
