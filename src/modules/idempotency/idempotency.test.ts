import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { createApp } from '../../app';
import { startServer } from '../../server';
import { createHarness, type Harness } from '../../test-support/harness';
import { activitiesPath, connect, count, progress } from '../../test-support/live-activity-fixtures';
import { retentionJob } from '../scheduler/jobs/retention.job';
import { idempotency, requestFingerprint } from './idempotency';
import { testRows } from '../../test-support/test-sql';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';
import { idempotencyRepository } from './idempotency.repository';

forEachDatabase('idempotency', (database) => {
  let h: Harness<AppContext>;
  let appId: string;
  let secret: string;
  beforeEach(async () => {
    h = await createHarness({ database });
    ({ id: appId, appSecret: secret } = await h.createApp({ id: 'idem' }));
    await connect(h, appId, 'u1');
  });
  afterEach(() => h.close());

  const withKey = (key: string, method: string, path: string, body?: unknown) =>
    h.request(method, path, { body, headers: { 'x-service-key': secret, 'idempotency-key': key } });

  describe('Idempotency-Key on the public API', () => {
    test('a repeated start creates one activity and replays the first answer', async () => {
      const first = await withKey('k-1', 'POST', activitiesPath(appId), progress);
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await withKey('k-1', 'POST', activitiesPath(appId), progress);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await count(h, 'activities'))).toBe(1);
    });

    test('the same key with another body, path or method is 422 and does nothing', async () => {
      await withKey('k-2', 'POST', activitiesPath(appId), progress);
      const changed = await withKey('k-2', 'POST', activitiesPath(appId), { ...progress, contentState: { progress: '20', detail: '2 of 10' } });
      expect(changed.status).toBe(422);
      expect(changed.body).toEqual({ title: 'Unprocessable Entity', status: 422, detail: expect.stringContaining('different request') });
      const otherPath = await withKey('k-2', 'POST', `/api/apps/${appId}/devices`, { endUserId: 'u2', platform: 'android', token: 'tok-u2' });
      expect(otherPath.status).toBe(422);
      expect((await count(h, 'activities'))).toBe(1);
    });

    test('a repeat while the first is still running is 409', async () => {
      const fingerprint = requestFingerprint('POST', activitiesPath(appId), progress);
      await testRows(h.ctx, `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at) VALUES (?, 'k-3', ?, 'running', ?)`, [appId, fingerprint, h.clock.now()]);
      const res = await withKey('k-3', 'POST', activitiesPath(appId), progress);
      expect(res.status).toBe(409);
      expect(res.body.detail).toBe('a request with this Idempotency-Key is still being processed');
      expect((await count(h, 'activities'))).toBe(0);
    });

    test('errors the client caused are kept; keys are per app and expire after 24 hours', async () => {
      const bad = await withKey('k-4', 'PATCH', `${activitiesPath(appId)}/la_missing`, { contentState: { progress: '1' } });
      expect(bad.status).toBe(404);
      const replay = await withKey('k-4', 'PATCH', `${activitiesPath(appId)}/la_missing`, { contentState: { progress: '1' } });
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([404, 'true']);

      await withKey('k-5', 'POST', activitiesPath(appId), progress);
      h.clock.advance(24 * 60 * 60 * 1000 + 1);
      const later = await withKey('k-5', 'POST', activitiesPath(appId), progress);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect((await count(h, 'activities'))).toBe(2);
    });

    test('the retention job prunes keys older than 24 hours', async () => {
      await withKey('k-6', 'POST', activitiesPath(appId), progress);
      h.clock.advance(25 * 60 * 60 * 1000);
      await retentionJob(h.ctx).run(h.clock.now());
      expect((await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM idempotency_keys'))[0]!.n).toBe(0);
    });

    test('a key that is too long or not printable is 400; requests without a key are not tracked', async () => {
      const long = await withKey('x'.repeat(256), 'POST', activitiesPath(appId), progress);
      expect(long.status).toBe(400);
      expect(long.body.detail).toBe('Idempotency-Key must be 1 to 255 printable ASCII characters');
      expect((await withKey('y'.repeat(255), 'POST', activitiesPath(appId), progress)).status).toBe(200);
      await h.request('POST', activitiesPath(appId), { body: progress, headers: { 'x-service-key': secret } });
      expect((await testRows<{ n: number }>(h.ctx, 'SELECT count(*) AS n FROM idempotency_keys'))[0]!.n).toBe(1);
    });

    test('an unauthenticated request never takes a key', async () => {
      const res = await h.request('POST', activitiesPath(appId), { body: progress, headers: { 'x-service-key': 'wrong', 'idempotency-key': 'k-7' } });
      expect(res.status).toBe(401);
      expect((await withKey('k-7', 'POST', activitiesPath(appId), progress)).status).toBe(200);
    });

    test('429 and 5xx answers release the key, so a retry runs; only a server start releases keys left running, not a second app on the database', async () => {
      const idem = idempotency(h.ctx);
      for (const status of [429, 500, 503]) {
        const request = new Request(`http://islet.test${activitiesPath(appId)}`, { method: 'POST', headers: { 'idempotency-key': `r-${status}` } });
        expect(await idem.begin(request, appId, progress)).toBeUndefined();
        await idem.finish(request, new Response('{}', { status }), status);
        expect(await idempotencyRepository(h.ctx.db.sql).find(appId, `r-${status}`)).toBeUndefined();
      }
      const running = new Request(`http://islet.test${activitiesPath(appId)}`, { method: 'POST', headers: { 'idempotency-key': 'left' } });
      await idem.begin(running, appId, progress);
      expect((await idempotencyRepository(h.ctx.db.sql).find(appId, 'left'))?.state).toBe('running');
      // `islet demo` beside a running server builds the services on the same database: the key stays taken.
      createApp({ ...h.ctx });
      expect((await idempotencyRepository(h.ctx.db.sql).find(appId, 'left'))?.state).toBe('running');
      h.ctx.config.server.host = '127.0.0.1';
      h.ctx.config.server.port = 0;
      const server = await startServer(h.ctx);
      try {
        expect(await idempotencyRepository(h.ctx.db.sql).find(appId, 'left')).toBeUndefined();
      } finally {
        await server.stop();
      }
    });
  });
});
