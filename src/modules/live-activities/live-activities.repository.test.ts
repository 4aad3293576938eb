import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { POSTGRES_TEST_TIMEOUT_MS } from '../../test-support/postgres';
import type { NewActivity } from './live-activities.types';
import { liveActivitiesRepository } from './live-activities.repository';

let h: Harness<AppContext> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

forEachDatabase('activities', (database) => {
  test(
    'a start of 205 activities (two full INSERT batches and a rest) is listed by filter and page; updates, ends and pruning keep to Active rows',
    async () => {
      h = await createHarness({ database });
      await h.createApp({ id: 'a1' });
      const { sql } = h.ctx.db;
      const rows: NewActivity[] = Array.from({ length: 205 }, (_, i) => ({
        id: `la${String(i).padStart(3, '0')}`,
        appId: 'a1',
        endUserId: `u${i % 5}`,
        templateSlug: i % 2 === 0 ? 'progress-bar' : 'image-banner',
        platform: i % 2 === 0 ? 'ios' : 'android',
        attributes: '{"label":"x"}',
        contentState: '{"progress":"0"}',
        startedAt: 1_764_000_000_000 + i,
      }));
      await h.ctx.db.write((tx) => liveActivitiesRepository(tx).insert(rows));

      const page = await liveActivitiesRepository(sql).list('a1', {}, 2, 1);
      expect(page.total).toBe(205);
      expect(page.rows.map((r) => r.id)).toEqual(['la203', 'la202']);
      expect(page.rows[0]).toMatchObject({ appId: 'a1', state: 'Active', startedAt: 1_764_000_000_203, lastTimestamp: 1_764_000_000, endedAt: null });
      expect((await liveActivitiesRepository(sql).list('a1', { endUserId: 'u1', templateSlug: 'image-banner' }, 100, 0)).total).toBe(21);

      // Timestamps never tie: a second event in the same second gets the next one.
      const now = 1_764_000_100_000;
      const first = await h.ctx.db.write((tx) => liveActivitiesRepository(tx).nextTimestamp('la000', now));
      expect(first).toBe(1_764_000_100);
      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).nextTimestamp('la000', now))).toBe(first + 1);
      expect(await h.ctx.db.write(async (tx) => (await liveActivitiesRepository(tx).findForWrite('a1', 'la000'))?.lastTimestamp)).toBe(first + 1);
      expect(await liveActivitiesRepository(sql).find('a2', 'la000')).toBeUndefined();

      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).recordUpdate('la001', '{"progress":"5"}', 7))).toBe(true);
      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).markEnded('la001', now, 'api', '{"progress":"9"}'))).toBe(true);
      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).markEnded('la001', now + 1, 'quota', null))).toBe(false);
      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).recordUpdate('la001', '{"progress":"6"}', 8))).toBe(false);
      expect(await liveActivitiesRepository(sql).byId('la001')).toMatchObject({ state: 'Ended', endedAt: now, endReason: 'api', contentState: '{"progress":"9"}', lastTimestamp: 7 });
      expect((await liveActivitiesRepository(sql).list('a1', { state: 'Ended' }, 10, 0)).rows.map((r) => r.id)).toEqual(['la001']);

      // No instance is live: every Active activity started by then is found.
      expect(await liveActivitiesRepository(sql).activeWithoutLiveInstance(1_764_000_000_002)).toHaveLength(2);
      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).pruneEnded(now))).toBe(0);
      expect(await h.ctx.db.write((tx) => liveActivitiesRepository(tx).pruneEnded(now + 1))).toBe(1);
      expect(await liveActivitiesRepository(sql).byId('la001')).toBeUndefined();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
