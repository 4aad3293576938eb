import { afterEach, expect, test } from 'bun:test';
import { activityContentOn, addActivityOn, addDeviceOn, closeRigOn, deliveryRowsOn, fcmRigOn, queueOn, type DeliveryHarness } from '../../test-support/delivery-on';
import type { FcmAnswer, FcmStandin } from '../../test-support/fcm-standin';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness } from '../../test-support/harness';
import { activitiesPath, connect, start } from '../../test-support/live-activity-fixtures';
import { testRows } from '../../test-support/test-sql';
import { until } from '../../test-support/eventually';
import { endpointDownReason, endpointHold } from './endpoint-health/endpoint-health';
import type { DeliveryEngine } from './delivery.engine';
import { unlabelled } from '../../test-support/metrics-text';
import { deliveriesRepository } from './worker/delivery.repository';

let h: DeliveryHarness;
let fcm: FcmStandin | undefined;
let engine: DeliveryEngine | undefined;
afterEach(async () => {
  await closeRigOn({ engine, standin: fcm, h });
  [engine, fcm] = [undefined, undefined];
});

/** Statuses and reasons of an activity's deliveries, by event and the progress they carry. */
async function outbox(activityId: string) {
  const rows = await testRows<{ kind: string; content: string; status: string; reason: string | null }>(
    h.ctx,
    `SELECT m.kind, m.content, d.status, d.reason FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.activity_id = ? ORDER BY d.id`,
    [activityId],
  );
  return rows.map((r) => [r.kind, JSON.parse(r.content).contentState.progress, r.status, r.reason]);
}

forEachDatabase('latest wins for updates that were in flight', (database) => {
  test('an update in flight that comes back as a retry after a newer update was queued is superseded, not sent after it (real router, FCM stand-in)', async () => {
    ({ h, fcm, engine } = await fcmRigOn(database));
    const appId = 'demo';
    await connect(h, appId, 'u1');
    const activityId = (await start(h, appId, { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' }, targetUsers: ['u1'] })).body.activities[0].id;
    await engine.drain();

    // The provider holds the first update until the test answers it: 500, try again.
    let answer!: (a: FcmAnswer) => void;
    fcm.respond((req) => (JSON.parse(req.body.message.data.contentState).progress === '20' ? new Promise<FcmAnswer>((r) => (answer = r)) : undefined));
    expect((await h.service(appId, 'PATCH', `${activitiesPath(appId)}/${activityId}`, { contentState: { progress: '20' } })).status).toBe(200);
    const draining = engine.drain();
    await until('the provider holds the first update', () => answer !== undefined);
    expect((await h.service(appId, 'PATCH', `${activitiesPath(appId)}/${activityId}`, { contentState: { progress: '30' } })).status).toBe(200);
    answer({ status: 500 });
    await draining;
    await engine.drain();

    expect(await outbox(activityId)).toEqual([
      ['la_start', '10', 'delivered', null],
      ['la_update', '20', 'superseded', 'superseded by a newer event'],
      ['la_update', '30', 'delivered', null],
    ]);
    const sent = fcm.requests.map((r) => JSON.parse(r.body.message.data.contentState).progress);
    expect(sent).toEqual(['10', '20', '30']);
    expect(unlabelled((await h.request('GET', '/metrics')).body)).toContain('islet_deliveries_total{app="demo",provider="fcm",kind="la_update",outcome="superseded"} 1');
  });

  test('an update claimed before a newer end and held back for a down channel is superseded; a start or end in the same place waits', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'demo' });
    const repo = deliveriesRepository(h.ctx.db.sql);
    const pixel = await addDeviceOn(h.ctx, 'demo', { platform: 'android' });
    const other = await addDeviceOn(h.ctx, 'demo', { platform: 'android', endUserId: 'user-2' });
    const activity = await addActivityOn(h.ctx, 'demo', { platform: 'android' });
    const content = (event: 'start' | 'update' | 'end', progress: string) => activityContentOn(h.ctx, activity, event, { progress });
    await queueOn(h.ctx, 'demo', content('start', '10'), [pixel.id]);
    await queueOn(h.ctx, 'demo', content('update', '20'), [pixel.id, other.id]);
    const claimed = await repo.claim(h.clock.now(), 10);
    expect(claimed.map((r) => r.kind)).toEqual(['la_start', 'la_update', 'la_update']);
    // Queued while those three are in flight: an end for the first device only.
    await queueOn(h.ctx, 'demo', content('end', '100'), [pixel.id]);
    const key = { appId: 'demo', provider: 'fcm', endpoint: 'https://fcm.googleapis.com' } as const;
    const held = endpointHold(key);
    // As the worker writes a delivery back to wait: with the latest-wins check (outcome-effects.ts withEffects).
    const back = (id: number, status: 'pending' | 'held') => ({
      id,
      status,
      holdKind: status === 'held' ? held.kind : null,
      ...(status === 'held' ? { holdEndpoint: held.endpoint } : {}),
      attempts: 0,
      nextAttemptAt: h.clock.now(),
      provider: null,
      providerId: null,
      reason: endpointDownReason(key),
      sentPayload: null,
      supersedeIfStale: true,
    });
    const { superseded } = await repo.record([back(claimed[0]!.id, 'pending'), back(claimed[1]!.id, 'held'), back(claimed[2]!.id, 'held')], h.clock.now());

    expect(superseded).toEqual([{ appId: 'demo', provider: null }]);
    expect((await deliveryRowsOn(h.ctx)).map((r) => [r.device_id, r.status, r.hold_kind])).toEqual([
      [pixel.id, 'pending', null],
      [pixel.id, 'superseded', null],
      // The other device has nothing newer: it keeps its update, held for the down endpoint.
      [other.id, 'held', 'fcm_down'],
      [pixel.id, 'pending', null],
    ]);
    // The end itself, back to wait, stays: ends are never superseded.
    const [end] = (await repo.claim(h.clock.now(), 10)).filter((r) => r.kind === 'la_end');
    await repo.record([back(end!.id, 'pending')], h.clock.now());
    expect((await deliveryRowsOn(h.ctx)).at(-1)!.status).toBe('pending');
  });
});
