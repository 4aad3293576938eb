import { afterEach, describe, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsReceived, type ApnsStandin } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery/delivery.engine';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../test-support/harness';
import type { AppContext } from '../../context';
import { nextSlot } from './push-to-start-pacing';

describe('nextSlot', () => {
  const pace = { perDevice: 3, windowMs: 600_000 };
  test('a device with fewer than perDevice slots goes now', () => {
    expect(nextSlot([], 1000, pace)).toBe(1000);
    expect(nextSlot([900, 950], 1000, pace)).toBe(1000);
  });
  test('the next goes once the oldest of the last perDevice leaves the window', () => {
    expect(nextSlot([100, 200, 300], 400, pace)).toBe(600_100);
    expect(nextSlot([100, 200, 300, 600_100], 400, pace)).toBe(600_200);
    // Long past: now.
    expect(nextSlot([100, 200, 300], 700_000, pace)).toBe(700_000);
  });
});

forEachDatabase('push-to-start pacing', (database) => {
  let h: Harness<AppContext>;
  let apns: ApnsStandin;
  let engine: DeliveryEngine;
  afterEach(async () => {
    await engine?.stop();
    await apns?.close();
    await h?.close();
  });

  test('past per_device push-to-starts in the window, a start waits queued and goes when the window allows', async () => {
    h = await createHarness({ database, toml: '[push_to_start]\nper_device = 2\nwindow_minutes = 10\n' });
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], clock: h.clock });
    const starts: ApnsReceived[] = [];
    apns.onDelivered((r) => starts.push(r));
    await h.createApp({ id: 'pace' });
    expect((await h.admin('PUT', '/api/admin/apps/pace/apns', { bundleId: 'com.pace', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca })).status).toBe(200);
    engine = createDeliveryEngine(h.ctx, { random: () => 0.5 });
    const pushToStart = apnsToken();
    expect((await h.service('pace', 'POST', '/api/apps/pace/devices', { endUserId: 'ann', platform: 'ios', token: apnsToken(), pushToStartToken: pushToStart })).status).toBe(200);
    const first = h.clock.now();
    const ids: string[] = [];
    for (const value of ['1', '2', '3']) {
      const res = await h.service('pace', 'POST', '/api/apps/pace/live-activities', { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value }, targetUsers: ['ann'] });
      expect(res.status).toBe(200);
      ids.push(res.body.activities[0].id);
      h.clock.advance(1000);
    }
    await engine.drain();
    expect(starts.map((r) => r.body.aps['content-state'].value).sort()).toEqual(['1', '2']);
    const third = (await h.admin('GET', `/api/admin/apps/pace/deliveries?activityId=${ids[2]}`)).body.deliveries[0];
    // Queued, due once the first start leaves the 10-minute window.
    expect(third).toMatchObject({ status: 'queued', nextAttemptAt: new Date(first + 600_000).toISOString() });
    h.clock.advance(600_000 - 3000 - 1);
    await engine.drain();
    expect(starts).toHaveLength(2);
    h.clock.advance(1);
    await engine.drain();
    expect(starts.map((r) => r.body.aps['content-state'].value).at(-1)).toBe('3');
    expect(starts).toHaveLength(3);
    expect(starts.every((r) => r.token === pushToStart)).toBe(true);
  }, 30_000);

  test('a start to several end users paces every device at once: each iPhone its own slot, a second start waits on each', async () => {
    h = await createHarness({ database, toml: '[push_to_start]\nper_device = 1\nwindow_minutes = 10\n' });
    await h.createApp({ id: 'pace' });
    const register = async (endUserId: string) => {
      const res = await h.service('pace', 'POST', '/api/apps/pace/devices', { endUserId, platform: 'ios', token: apnsToken(), pushToStartToken: apnsToken() });
      expect(res.status).toBe(200);
      return res.body.device.id as string;
    };
    // Ann has two iPhones: a start to her goes to both, each paced on its own.
    const devices = [await register('ann'), await register('ann'), await register('bob'), await register('cy')];
    const start = async () => {
      const res = await h.service('pace', 'POST', '/api/apps/pace/live-activities', { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' } });
      expect(res.body.activityCount).toBe(3);
      return res.body.activities.map((a: { id: string }) => a.id) as string[];
    };
    const dueTimes = async (ids: string[]) => {
      const times: Record<string, string> = {};
      for (const id of ids) for (const d of (await h.admin('GET', `/api/admin/apps/pace/deliveries?activityId=${id}`)).body.deliveries) times[d.deviceId] = d.nextAttemptAt;
      return times;
    };
    const now = h.clock.now();
    const first = await dueTimes(await start());
    expect(Object.keys(first).sort()).toEqual([...devices].sort());
    expect(new Set(Object.values(first))).toEqual(new Set([new Date(now).toISOString()]));
    h.clock.advance(1000);
    const second = await dueTimes(await start());
    expect(Object.keys(second).sort()).toEqual([...devices].sort());
    expect(new Set(Object.values(second))).toEqual(new Set([new Date(now + 600_000).toISOString()]));
  }, 30_000);
});
