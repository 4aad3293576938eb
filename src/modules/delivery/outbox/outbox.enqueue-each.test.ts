import { afterEach, expect, test } from 'bun:test';
import { forEachDatabase } from '../../../test-support/databases';
import { notificationContent } from '../../../test-support/delivery-fixtures';
import { activityContentOn, addDeviceOn, type DeliveryHarness } from '../../../test-support/delivery-on';
import { createHarness } from '../../../test-support/harness';
import { testRows } from '../../../test-support/test-sql';
import { tokensRepository } from '../../tokens/tokens.repository';

let h: DeliveryHarness;
afterEach(() => h?.close());

forEachDatabase('queueing several messages at once (a start to many end users)', (database) => {
  test("each message gets its own deliveries, ids in the order given, more than one statement's batch of messages", async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const devices: { id: string }[] = [];
    for (let i = 0; i < 3; i++) devices.push(await addDeviceOn(h.ctx, 'demo', { platform: 'android', endUserId: `user-${i}` }));
    const tokens = await Promise.all(devices.map(async (d) => (await tokensRepository(h.ctx.db.sql).ofDevice(d.id))[0]!.id));
    // 1,203 messages: PostgreSQL writes them 1,000 a statement; each goes to one of the three devices.
    const messages = Array.from({ length: 1203 }, (_, i) => ({
      content: activityContentOn(h.ctx, `la_${String(i).padStart(5, '0')}`, 'start'),
      targets: [{ deviceId: devices[i % 3]!.id, tokenId: tokens[i % 3]! }],
      // Every other one keeps a body rendered at queueing (a start to an iPhone), the others none.
      sentBody: i % 2 === 0 ? `{"aps":{"n":${i}}}` : null,
    }));
    const ids = await h.ctx.db.write((tx) => h.ctx.outbox.enqueueEach(tx, { appId: 'demo', now: h.ctx.clock.now(), messages }));

    expect(ids).toHaveLength(1203);
    expect(new Set(ids).size).toBe(1203);
    const rows = await testRows<{ id: number; activity_id: string; kind: string; sent_body: string | null; device_id: string; d_activity: string }>(
      h.ctx,
      `SELECT m.id, m.activity_id, m.kind, m.sent_body, d.device_id, d.activity_id AS d_activity FROM messages m JOIN deliveries d ON d.message_id = m.id ORDER BY m.activity_id`,
    );
    expect(rows).toHaveLength(1203);
    rows.forEach((row, i) => {
      expect({ id: Number(row.id), activity: row.activity_id, kind: row.kind, body: row.sent_body, device: row.device_id, deliveryActivity: row.d_activity }).toEqual({
        id: ids[i]!,
        activity: `la_${String(i).padStart(5, '0')}`,
        kind: 'la_start',
        body: i % 2 === 0 ? `{"aps":{"n":${i}}}` : null,
        device: devices[i % 3]!.id,
        deliveryActivity: `la_${String(i).padStart(5, '0')}`,
      });
    });
  });

  test('a target that failed at once is recorded failed on its own message, and the others stay pending', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const device = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const [token] = await tokensRepository(h.ctx.db.sql).ofDevice(device.id);
    const ids = await h.ctx.db.write((tx) =>
      h.ctx.outbox.enqueueEach(tx, {
        appId: 'demo',
        now: h.ctx.clock.now(),
        messages: [
          { content: notificationContent('one'), targets: [{ deviceId: device.id, tokenId: token!.id }] },
          { content: notificationContent('two'), targets: [{ deviceId: device.id, status: 'failed', reason: 'no push token' }] },
        ],
      }),
    );
    const rows = await testRows<{ message_id: number; status: string; reason: string | null }>(h.ctx, 'SELECT message_id, status, reason FROM deliveries ORDER BY message_id');
    expect(rows.map((r) => ({ ...r, message_id: Number(r.message_id) }))).toEqual([
      { message_id: ids[0]!, status: 'pending', reason: null },
      { message_id: ids[1]!, status: 'failed', reason: 'no push token' },
    ]);
  });

  test('an update is refused: it supersedes, so it goes through enqueue', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const queued = h.ctx.db.write((tx) => h.ctx.outbox.enqueueEach(tx, { appId: 'demo', now: h.ctx.clock.now(), messages: [{ content: activityContentOn(h.ctx, 'la_1', 'update'), targets: [] }] }));
    await expect(queued).rejects.toThrow('enqueueEach: an update or end supersedes');
  });
});
