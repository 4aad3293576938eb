import { afterEach, describe, expect, test } from 'bun:test';
import { apnsToken } from '../../test-support/apns-standin';
import { addDevice, notificationContent, queue } from '../../test-support/delivery-fixtures';
import { createHarness, type Harness } from '../../test-support/harness';
import { tokensRepository } from './tokens.repository';

let h: Harness;
afterEach(() => h?.close());

const kinds = (deviceId: string) =>
  tokensRepository(h.ctx.db.sqlite)
    .ofDevice(deviceId)
    .map((t) => [t.kind, t.state, t.invalidReason]);

describe('token ledger', () => {
  test('registration writes the device token and push-to-start token; a new push-to-start token retires the old one', async () => {
    h = createHarness();
    await h.createApp({ id: 'a1' });
    const first = apnsToken();
    const device = addDevice(h.ctx, 'a1', { platform: 'ios', pushToStartToken: first });
    expect(kinds(device.id)).toEqual([
      ['apns_device', 'active', null],
      ['apns_push_to_start', 'active', null],
    ]);
    addDevice(h.ctx, 'a1', { platform: 'ios', token: device.token, pushToStartToken: apnsToken() });
    expect(kinds(device.id)).toEqual([
      ['apns_device', 'active', null],
      ['apns_push_to_start', 'invalid', 'replaced by a newer push-to-start token'],
      ['apns_push_to_start', 'active', null],
    ]);
  });

  test('a push-to-start token reported from another device row moves there: it is never on two devices', async () => {
    h = createHarness();
    await h.createApp({ id: 'a1' });
    const pushToStart = apnsToken();
    const before = addDevice(h.ctx, 'a1', { platform: 'ios', pushToStartToken: pushToStart });
    const after = addDevice(h.ctx, 'a1', { platform: 'ios', pushToStartToken: pushToStart });
    expect(kinds(before.id)).toEqual([['apns_device', 'active', null]]);
    // The same row (its id predates the new device token's), now owned by the new device.
    expect(kinds(after.id).sort()).toEqual([
      ['apns_device', 'active', null],
      ['apns_push_to_start', 'active', null],
    ]);
  });

  test('registering a refused token again revives it; a refusal older than the last report is ignored', async () => {
    h = createHarness();
    await h.createApp({ id: 'a1' });
    const tokens = tokensRepository(h.ctx.db.sqlite);
    const device = addDevice(h.ctx, 'a1', { platform: 'android' });
    const [token] = tokens.ofDevice(device.id);
    expect(tokens.invalidate(token!.id, 'UNREGISTERED', h.clock.now())).toBe(true);
    h.clock.advance(5000);
    addDevice(h.ctx, 'a1', { platform: 'android', token: device.token });
    expect(tokens.find(token!.id)).toMatchObject({ state: 'active', reportedAt: h.clock.now() });
    expect(tokens.invalidate(token!.id, 'Unregistered', h.clock.now(), h.clock.now() - 1)).toBe(false);
    expect(tokens.invalidate(token!.id, 'Unregistered', h.clock.now(), h.clock.now())).toBe(true);
  });
});
