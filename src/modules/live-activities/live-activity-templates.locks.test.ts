import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import type { AppContext } from '../../context';
import { until } from '../../test-support/eventually';
import { createHarness, type Harness } from '../../test-support/harness';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';
import { testRows } from '../../test-support/test-sql';
import { liveActivitiesService } from './live-activities.service';
import { liveActivityTemplatesService } from './live-activity-templates.service';
import { appsRepository } from '../apps/apps.repository';

// Only PostgreSQL runs two writes at once (SQLite's one writer serializes them): a delete of a
// template racing a start of it must see the started activity, not delete under it.
describe('app-defined templates under concurrent writes (postgres)', () => {
  let h: Harness<AppContext>;
  beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);
  afterEach(() => h?.close());

  test('a delete waits for a start of the template that is committing, then refuses: the template is in use', async () => {
    h = await createHarness({ database: 'postgres' });
    await h.createApp({ id: 'a1' });
    expect((await h.admin('POST', '/api/admin/apps/a1/live-activity-templates', { slug: 'ride', attributesType: 'RideAttributes', contentState: { eta: { type: 'integer' } } })).status).toBe(201);
    const secret = (await h.admin('GET', '/api/admin/apps/a1/secrets')).body.appSecret;
    expect((await h.request('POST', '/api/apps/a1/devices', { body: { endUserId: 'u1', platform: 'android', token: 'fcm-u1' }, headers: { 'x-service-key': secret } })).status).toBe(200);

    const app = (await appsRepository(h.ctx.db.sql).find('a1'))!;
    const start = await liveActivitiesService(h.ctx).prepareStart(app, { templateSlug: 'ride', contentState: { eta: 3 } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The start's transaction has written its activity and holds the template, not yet committed.
    let written = false;
    const starting = h.ctx.db.write(async (tx) => {
      const started = await start(tx);
      written = true;
      await gate;
      return started;
    });
    await until('the start has written, uncommitted', () => written);
    let done = false;
    const removing = liveActivityTemplatesService(h.ctx)
      .remove('a1', 'ride')
      .then(
        () => 'removed',
        (e: Error) => e.message,
      )
      .finally(() => (done = true));
    await until('the delete waits for the start, or is done', async () => done || (await lockWaiters()) > 0);
    release();
    expect((await starting).activityCount).toBe(1);
    expect(await removing).toBe('live activity template ride is in use by 1 active activity');
  });

  /** Statements of this database waiting for a lock. */
  const lockWaiters = async () =>
    (await testRows<{ n: number }>(h.ctx, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0]!.n;
});
