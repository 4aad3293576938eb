import { afterEach, describe, expect, test } from 'bun:test';
import { apnsToken } from '../../test-support/apns-standin';
import { addDevice, notificationContent, queue } from '../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../test-support/harness';
import { tokensRepository } from './tokens.repository';

let h: Harness;
afterEach(() => h?.close());

const kinds = async (deviceId: string) => (await tokensRepository(h.ctx.db.sql).ofDevice(deviceId)).map((t) => [t.kind, t.state, t.invalidReason]);

describe('token ledger', () => {
  test('registration writes the device token and push-to-start token; a new push-to-start token retires the old one', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    const first = apnsToken();
    const device = await addDevice(h.ctx, 'a1', { platform: 'ios', pushToStartToken: first });
    expect(await kinds(device.id)).toEqual([
      ['apns_device', 'active', null],
      ['apns_push_to_start', 'active', null],
    ]);
    await addDevice(h.ctx, 'a1', { platform: 'ios', token: device.token, pushToStartToken: apnsToken() });
    expect(await kinds(device.id)).toEqual([
      ['apns_device', 'active', null],
      ['apns_push_to_start', 'invalid', 'replaced by a newer push-to-start token'],
      ['apns_push_to_start', 'active', null],
    ]);
  });

  test('a push-to-start token reported from another device row moves there: it is never on two devices', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    const pushToStart = apnsToken();
    const before = await addDevice(h.ctx, 'a1', { platform: 'ios', pushToStartToken: pushToStart });
    const after = await addDevice(h.ctx, 'a1', { platform: 'ios', pushToStartToken: pushToStart });
    expect(await kinds(before.id)).toEqual([['apns_device', 'active', null]]);
    // The same row (its id predates the new device token's), now owned by the new device.
    expect((await kinds(after.id)).sort()).toEqual([
      ['apns_device', 'active', null],
      ['apns_push_to_start', 'active', null],
    ]);
  });

  test('registering a refused token again revives it; a refusal older than the last report is ignored', async () => {
    h = await createHarness();
    await h.createApp({ id: 'a1' });
    const tokens = tokensRepository(h.ctx.db.sql);
    const device = await addDevice(h.ctx, 'a1', { platform: 'android' });
    const [token] = await tokens.ofDevice(device.id);
    expect(await tokens.invalidate(token!.id, 'UNREGISTERED', h.clock.now())).toBe(true);
    h.clock.advance(5000);
    await addDevice(h.ctx, 'a1', { platform: 'android', token: device.token });
    expect(await tokens.find(token!.id)).toMatchObject({ state: 'active', reportedAt: h.clock.now() });
    expect(await tokens.invalidate(token!.id, 'Unregistered', h.clock.now(), h.clock.now() - 1)).toBe(false);
    expect(await tokens.invalidate(token!.id, 'Unregistered', h.clock.now(), h.clock.now())).toBe(true);
  });
});
