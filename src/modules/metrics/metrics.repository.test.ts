import { afterEach, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { apnsToken } from '../../test-support/apns-standin';
import { forEachDatabase } from '../../test-support/databases';
import { createHarness, type Harness } from '../../test-support/harness';
import { testRows } from '../../test-support/test-sql';
import { metricsRepository } from './metrics.repository';

/*
 * The metrics repository's one implementation (metrics.ts) on each database: counts come back as
 * numbers and channel states as booleans on both.
 */
forEachDatabase('metrics repository', (database) => {
  let h: Harness<AppContext> | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  test('queue depth by app, provider and state; channels configured and paused', async () => {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1' });
    await h.createApp({ id: 'a2' });
    const welcome = { slug: 'welcome', title: 'Hi', body: 'there' };
    expect((await h.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [welcome] })).status).toBeLessThan(300);
    for (const label of ['one', 'two'])
      expect((await h.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: label, platform: 'ios', token: apnsToken(label) })).status).toBe(200);
    expect((await h.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'welcome' })).status).toBe(200);
    // Credentials stored and refused, as the delivery worker leaves them (the sealed value is not read here).
    await testRows(h.ctx, `UPDATE apps SET apns_sealed = 'sealed', apns_paused_reason = 'InvalidProviderToken' WHERE id = 'a2'`);

    const metrics = metricsRepository(h.ctx.db.sql);
    expect(await metrics.queueDepth()).toEqual([{ app: 'a1', provider: 'unassigned', state: 'pending', n: 2 }]);
    expect(await metrics.activeActivities()).toEqual([]);
    const channels = (await metrics.channels()).sort((a, b) => a.app.localeCompare(b.app));
    expect(channels).toEqual([
      { app: 'a1', apns: false, fcm: false, apnsPaused: false, fcmPaused: false },
      { app: 'a2', apns: true, fcm: false, apnsPaused: true, fcmPaused: false },
    ]);
  });
});
