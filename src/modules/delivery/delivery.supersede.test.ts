import { afterEach, describe, expect, test } from 'bun:test';
import { activityContent, addActivity, addDevice, deliveryRows, queue } from '../../test-support/delivery-fixtures';
import type { FcmAnswer, FcmStandin } from '../../test-support/fcm-standin';
import { createHarness, type Harness } from '../../test-support/harness';
import { closeRig, fcmRig } from '../../test-support/delivery-rig';
import { activitiesPath, connect, start } from '../../test-support/live-activity-fixtures';
import { endpointHold } from './endpoint-health/endpoint-health';
import { until } from '../../test-support/eventually';
import type { DeliveryEngine } from './delivery.engine';
import { unlabelled } from '../../test-support/metrics-text';

let h: Harness;
let fcm: FcmStandin;
let engine: DeliveryEngine;
afterEach(() => closeRig({ engine, standin: fcm, h }));

/** Statuses and reasons of an activity's deliveries, by event and the progress they carry. */
function outbox(activityId: string) {
  return h.ctx.db.sqlite.$client
    .query<{ kind: string; content: string; status: string; reason: string | null }, [string]>(
      `SELECT m.kind, m.content, d.status, d.reason FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.activity_id = ? ORDER BY d.id`,
    )
    .all(activityId)
    .map((r) => [r.kind, JSON.parse(r.content).contentState.progress, r.status, r.reason]);
}

describe('latest wins for updates that were in flight', () => {
  test('an update in flight that comes back as a retry after a newer update was queued is superseded, not sent after it (real router, FCM stand-in)', async () => {
    ({ h, fcm, engine } = await fcmRig());
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

    expect(outbox(activityId)).toEqual([
      ['la_start', '10', 'delivered', null],
      ['la_update', '20', 'superseded', 'superseded by a newer event'],
      ['la_update', '30', 'delivered', null],
    ]);
    const sent = fcm.requests.map((r) => JSON.parse(r.body.message.data.contentState).progress);
    expect(sent).toEqual(['10', '20', '30']);
    expect(unlabelled((await h.request('GET', '/metrics')).body)).toContain('islet_deliveries_total{app="demo",provider="fcm",kind="la_update",outcome="superseded"} 1');
  });

  test('an update claimed before a newer end and held back for a down channel is superseded; a start or end in the same place waits', async () => {
    h = await createHarness();
    await h.createApp({ id: 'demo' });
    const repo = h.ctx.db.repos.deliveries;
    const pixel = addDevice(h.ctx, 'demo', { platform: 'android' });
    const other = addDevice(h.ctx, 'demo', { platform: 'android', endUserId: 'user-2' });
    const activity = addActivity(h.ctx, 'demo', { platform: 'android' });
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'start', { progress: '10' }), [pixel.id]);
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'update', { progress: '20' }), [pixel.id, other.id]);
    const claimed = await repo.claim(h.clock.now(), 10);
    expect(claimed.map((r) => r.kind)).toEqual(['la_start', 'la_update', 'la_update']);
    // Queued while those three are in flight: an end for the first device only.
    await queue(h.ctx, 'demo', activityContent(h.ctx, activity, 'end', { progress: '100' }), [pixel.id]);
    const held = endpointHold({ appId: 'demo', provider: 'fcm', endpoint: 'https://fcm.googleapis.com' });
    // As the worker writes a delivery back to wait: with the latest-wins check (outcome-effects.ts withEffects).
    const back = (id: number, status: 'pending' | 'held') => ({
      id,
      status,
      holdKind: status === 'held' ? held.kind : null,
      attempts: 0,
      nextAttemptAt: h.clock.now(),
      provider: null,
      providerId: null,
      reason: held.reason,
      sentPayload: null,
      supersedeIfStale: true,
    });
    const { superseded } = await repo.record([back(claimed[0]!.id, 'pending'), back(claimed[1]!.id, 'held'), back(claimed[2]!.id, 'held')], h.clock.now());

    expect(superseded).toEqual([{ appId: 'demo', provider: null }]);
    expect(deliveryRows(h.ctx).map((r) => [r.device_id, r.status])).toEqual([
      [pixel.id, 'pending'],
      [pixel.id, 'superseded'],
      // The other device has nothing newer: it keeps its update.
      [other.id, 'held'],
      [pixel.id, 'pending'],
    ]);
    // The end itself, back to wait, stays: ends are never superseded.
    const [end] = (await repo.claim(h.clock.now(), 10)).filter((r) => r.kind === 'la_end');
    await repo.record([back(end!.id, 'pending')], h.clock.now());
    expect(deliveryRows(h.ctx).at(-1)!.status).toBe('pending');
  });
});
