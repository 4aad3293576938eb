import { afterEach, expect, test } from 'bun:test';
import { apnsToken } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';
import { createHarness, type Harness } from '../../test-support/harness';
import { tokensRepository } from './tokens.repository';
import { devicesRepository } from '../devices/devices.repository';

forEachDatabase('push-to-start tokens per attributes type (issue 39)', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  test('each type keeps its own active token: a newer one retires only the older token of its type; starts of the built-ins see only the IsletActivityAttributes one', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    const devices = devicesRepository(h.ctx.db.sql);
    const tokens = tokensRepository(h.ctx.db.sql);
    const [islet, ride, ride2, islet2] = [apnsToken(), apnsToken(), apnsToken(), apnsToken()];
    const input = { endUserId: 'u1', platform: 'ios' as const, token: apnsToken() };
    const { device } = await devices.upsert('a1', { ...input, pushToStartToken: islet, pushToStartTokens: { RideAttributes: ride } }, h.clock.now());
    const state = async () =>
      (await tokens.ofDevice(device.id)).filter((t) => t.kind === 'apns_push_to_start').map((t) => [t.value, t.attributesType, t.state]);
    expect(await state()).toEqual([
      [islet, null, 'active'],
      [ride, 'RideAttributes', 'active'],
    ]);
    const rideId = (await tokens.pushToStartFor([device.id], 'RideAttributes'))[0]!.id;
    expect(await tokens.pushToStartFor([device.id, 'dev_other'], 'MatchAttributes')).toEqual([]);
    // The built-in templates' start target is the IsletActivityAttributes token, never a typed one.
    const isletId = (await tokens.ofDevice(device.id)).find((t) => t.value === islet)!.id;
    expect((await devices.targets('a1', {}))[0]!.pushToStartTokenId).toBe(isletId);

    // A new RideAttributes token retires the old one only; a new Islet token leaves RideAttributes alone.
    await devices.upsert('a1', { ...input, pushToStartTokens: { RideAttributes: ride2 } }, h.clock.now());
    await devices.upsert('a1', { ...input, pushToStartToken: islet2 }, h.clock.now());
    expect(await state()).toEqual([
      [islet, null, 'invalid'],
      [ride, 'RideAttributes', 'invalid'],
      [ride2, 'RideAttributes', 'active'],
      [islet2, null, 'active'],
    ]);
    expect((await tokens.pushToStartFor([device.id], 'RideAttributes')).map((t) => t.id)).not.toContain(rideId);
    expect((await devices.targets('a1', {}))[0]!.pushToStartTokenId).toBe((await tokens.ofDevice(device.id)).find((t) => t.value === islet2)!.id);
  });
});
