import { afterEach, expect, test } from 'bun:test';
import { activityContentOn, addActivityOn, addDeviceOn, deliveryRowsOn, queueOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { forEachDatabase } from '../../../test-support/databases';
import { createHarness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { endpointHold } from './endpoint-key';
import { endpointHoldsRepository, heldKey } from './endpoint-holds.repository';

const APPLE = 'https://api.push.apple.com';
const SANDBOX = 'https://api.sandbox.push.apple.com';

forEachDatabase('holds for a down endpoint', (database) => {
  let h: DeliveryHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Three deliveries held apns_down: two for Apple's production endpoint, one for the sandbox; their reasons say anything. */
  async function held() {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const devices = [await addDeviceOn(h.ctx, 'demo', { platform: 'ios' }), await addDeviceOn(h.ctx, 'demo', { platform: 'ios' }), await addDeviceOn(h.ctx, 'demo', { platform: 'ios' })];
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'ios' });
    await queueOn(h.ctx, 'demo', activityContentOn(h.ctx, activity, 'start', { progress: '10' }), devices.map((d) => d.id));
    const endpoints = [APPLE, APPLE, SANDBOX];
    // The reasons deliberately name the other endpoint: only the column may decide.
    const reasons = [`apns channel down: ${SANDBOX}`, 'written by hand', `apns channel down: ${APPLE}`];
    const rows = await deliveryRowsOn(h.ctx);
    for (const [i, row] of rows.entries())
      await testRows(h.ctx, `UPDATE deliveries SET status = 'held', hold_kind = 'apns_down', hold_endpoint = ?, reason = ? WHERE id = ?`, [endpoints[i]!, reasons[i]!, row.id]);
    return { ctx: h.ctx, ids: rows.map((r) => r.id) };
  }

  test('held deliveries are counted and released by the endpoint in their hold_endpoint column, whatever their reason says', async () => {
    const { ctx, ids } = await held();
    const holds = endpointHoldsRepository(ctx.db.sql);
    expect(await holds.heldByEndpoint('demo')).toEqual(new Map([[heldKey('apns', APPLE), 2], [heldKey('apns', SANDBOX), 1]]));

    const apple = endpointHold({ appId: 'demo', provider: 'apns', endpoint: APPLE });
    expect(await holds.releaseProbe('demo', apple, ctx.clock.now())).toBe(true);
    expect(await holds.release('demo', apple, ctx.clock.now())).toBe(1);
    const rows = await testRows<{ id: number; status: string; hold_endpoint: string | null }>(ctx, 'SELECT id, status, hold_endpoint FROM deliveries ORDER BY id');
    expect(rows).toEqual([
      { id: ids[0]!, status: 'pending', hold_endpoint: null },
      { id: ids[1]!, status: 'pending', hold_endpoint: null },
      { id: ids[2]!, status: 'held', hold_endpoint: SANDBOX },
    ]);
    expect(await holds.heldByEndpoint('demo')).toEqual(new Map([[heldKey('apns', SANDBOX), 1]]));
  });
});
