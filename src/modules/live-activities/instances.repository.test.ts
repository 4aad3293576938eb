import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { apnsToken } from '../../test-support/apns-standin';
import { POSTGRES_TEST_TIMEOUT_MS } from '../../test-support/postgres';
import type { NewInstance } from './instances.types';
import { instancesRepository } from './instances.repository';
import { tokensRepository } from '../tokens/tokens.repository';
import { liveActivitiesRepository } from './live-activities.repository';
import { devicesRepository } from '../devices/devices.repository';

let h: Harness<AppContext> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

forEachDatabase('activity instances', (database) => {
  test(
    'a start to 230 devices (two full INSERT batches and a rest) is read back, ended by device or all at once, and found by the iOS expiry scan',
    async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const { sql } = h.ctx.db;
      const devices: { id: string; platform: 'ios' | 'android' }[] = [];
      for (let i = 0; i < 230; i++) {
        const platform = i % 2 === 0 ? 'ios' : 'android';
        const { device } = await devicesRepository(sql).upsert('a1', { endUserId: 'u1', platform, token: platform === 'ios' ? apnsToken(`d${i}`) : `fcm-${i}` }, 1_000 + i);
        devices.push({ id: device.id, platform });
      }
      await liveActivitiesRepository(sql).insert([
        { id: 'la1', appId: 'a1', endUserId: 'u1', templateSlug: 'progress-bar', platform: 'ios', attributes: '{}', contentState: '{}', startedAt: 5_000 },
      ]);
      // Started newest device first, so the oldest instance is the last device's.
      const rows: NewInstance[] = devices.map((d, i) => ({ activityId: 'la1', deviceId: d.id, platform: d.platform, startedAt: 10_000 + (230 - i) }));
      await h.ctx.db.write((tx) => instancesRepository(tx).insert(rows));
      // Written again (a retried start): the instances there are kept as they were.
      await h.ctx.db.write((tx) => instancesRepository(tx).insert(rows.slice(0, 3).map((r) => ({ ...r, startedAt: 99_999 }))));

      const live = await instancesRepository(sql).live('la1');
      expect(live).toHaveLength(230);
      expect(live[0]).toMatchObject({ deviceId: devices[229]!.id, platform: 'android', activityTokenId: null, activityTokenState: null });
      const [token] = await tokensRepository(sql).ofDevice(devices[229]!.id);
      expect(live[0]!.deviceTokenId).toBe(token!.id);
      expect(await instancesRepository(sql).oldestLiveIos('la1')).toBe(10_000 + 2);
      expect(await instancesRepository(sql).dueIos(10_003)).toEqual([{ activityId: 'la1', deviceId: devices[228]!.id }]);

      const some = [devices[0]!.id, devices[1]!.id, 'dev_unknown'];
      expect((await h.ctx.db.write((tx) => instancesRepository(tx).end('la1', 20_000, some))).sort()).toEqual(some.slice(0, 2).sort());
      expect(await h.ctx.db.write((tx) => instancesRepository(tx).end('la1', 20_001, some))).toEqual([]);
      expect(await h.ctx.db.write((tx) => instancesRepository(tx).end('la1', 20_002))).toHaveLength(228);
      expect(await instancesRepository(sql).live('la1')).toEqual([]);
      expect(await instancesRepository(sql).oldestLiveIos('la1')).toBeNull();
      expect(await instancesRepository(sql).any('la1')).toBe(true);
      expect(await instancesRepository(sql).any('la2')).toBe(false);

      const detail = await instancesRepository(sql).detail('la1');
      expect(detail).toHaveLength(230);
      expect(detail.find((d) => d.deviceId === devices[0]!.id)).toMatchObject({ platform: 'ios', startedAt: 10_230, endedAt: 20_000, tokenState: null, lastDeliveryAt: null });
      expect(detail.find((d) => d.deviceId === devices[1]!.id)).toMatchObject({ platform: 'android', endedAt: 20_000, tokenState: 'active' });
    },
    POSTGRES_TEST_TIMEOUT_MS * 2,
  );
});
