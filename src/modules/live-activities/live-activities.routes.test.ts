import { afterEach, describe, expect, test } from 'bun:test';
import { createHarness, type Harness } from '../../test-support/harness';
import { activitiesPath, connect, count, progress, start } from '../../test-support/live-activity-fixtures';
import { apnsToken } from '../../test-support/apns-standin';
import { testRows } from '../../test-support/test-sql';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';

forEachDatabase('live-activities', (database) => {
  let h: Harness<AppContext>;
  afterEach(() => h?.close());

  const PATH = activitiesPath('a1');
  const NOW = '2026-01-15T12:00:00.000Z';

  async function setup(plan?: string) {
    h = await createHarness({ database });
    await h.createApp({ id: 'a1', ...(plan ? { plan } : {}) });
  }

  const one = async (endUserId = 'u1') => {
    await connect(h, 'a1', endUserId);
    return (await start(h, 'a1', { ...progress, targetUsers: [endUserId] })).body.activities[0].id as string;
  };

  describe('starting live activities', () => {
    test('omitting targetUsers starts one activity per connected end user, on the platform of their newest device', async () => {
      await setup();
      await connect(h, 'a1', 'u1', { platform: 'android' });
      h.clock.advance(1000);
      await connect(h, 'a1', 'u1', { platform: 'ios', pushToStartToken: apnsToken('p2s') });
      await connect(h, 'a1', 'u2', { platform: 'android' });
      // u3's only device was refused by its provider: u3 is no longer connected.
      await connect(h, 'a1', 'u3', { platform: 'ios', token: apnsToken('dead') });
      await testRows(h.ctx, `UPDATE tokens SET state = 'invalid' WHERE value = ?`, [apnsToken('dead')]);

      const res = await start(h, 'a1');
      expect(res.body.activityCount).toBe(2);
      const byUser = Object.fromEntries(res.body.activities.map((a: { endUserId: string }) => [a.endUserId, a]));
      expect(Object.keys(byUser).sort()).toEqual(['u1', 'u2']);
      expect(byUser.u1).toEqual({ id: byUser.u1.id, appId: 'a1', endUserId: 'u1', templateSlug: 'progress-bar', state: 'Active', platform: 'ios', startedAt: '2026-01-15T12:00:01.000Z' });
      expect(byUser.u2.platform).toBe('android');
      expect(byUser.u1.id).toMatch(/^la_[0-9a-z]+$/);
      expect(byUser.u1.id).not.toBe(byUser.u2.id);
    });

    test('targetUsers: duplicates are merged, unknown ids skipped, and activityCount counts what was created', async () => {
      await setup();
      await connect(h, 'a1', 'u1');
      await connect(h, 'a1', 'u2');
      const res = await start(h, 'a1', { ...progress, targetUsers: ['u1', 'u1', 'ghost'] });
      expect(res.body.activityCount).toBe(1);
      expect(res.body.activities.map((a: { endUserId: string }) => a.endUserId)).toEqual(['u1']);
      expect((await count(h, 'activities'))).toBe(1);
    });

    test('an empty targetUsers is refused; with nobody connected nothing is created', async () => {
      await setup();
      const empty = await h.service('a1', 'POST', PATH, { ...progress, targetUsers: [] });
      expect(empty.body).toEqual({ title: 'Bad Request', status: 400, detail: 'targetUsers must have at least 1 item' });
      const nobody = await start(h, 'a1');
      expect(nobody.body).toEqual({ activityCount: 0, activities: [] });
    });

    test('an unknown template slug is 400 invalid template slug', async () => {
      await setup();
      const res = await h.service('a1', 'POST', PATH, { ...progress, templateSlug: 'progress' });
      expect(res.status).toBe(400);
      // The spec's detail word for word; the slug as sent and the eight valid ones beside it (RFC 9457 extension members).
      expect(res.body).toEqual({
        title: 'Bad Request',
        status: 400,
        detail: 'invalid template slug',
        templateSlug: 'progress',
        validSlugs: ['status-tracker', 'metric-live', 'countdown', 'progress-bar', 'two-column', 'key-value-list', 'image-banner', 'mini-table'],
      });
    });

    test('a plan without live activities is 403, even for a valid request', async () => {
      await setup('free');
      await connect(h, 'a1', 'u1');
      const res = await h.service('a1', 'POST', PATH, progress);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ title: 'Forbidden', status: 403, detail: 'live activities are not available on your current plan' });
      expect((await count(h, 'activities'))).toBe(0);
    });

    test('data whose rendered push would exceed 4096 bytes is refused', async () => {
      await setup();
      await connect(h, 'a1', 'u1');
      const res = await h.service('a1', 'POST', PATH, { ...progress, contentState: { progress: '5', detail: 'x'.repeat(4000) } });
      expect(res.body).toEqual({ title: 'Bad Request', status: 400, detail: 'payload exceeds 4096 bytes' });
      expect((await count(h, 'activities'))).toBe(0);
      expect((await count(h, 'messages'))).toBe(0);
    });
  });

  describe('updating a live activity', () => {
    test('the contentState is replaced entirely, not merged', async () => {
      await setup();
      const id = await one();
      const res = await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '60' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      const [row] = await testRows<{ content_state: string }>(h.ctx, 'SELECT content_state FROM activities WHERE id = ?', [id]);
      expect(JSON.parse(row!.content_state)).toEqual({ progress: '60' });
    });

    test('the new contentState is validated against the template, with the stored attributes', async () => {
      await setup();
      await connect(h, 'a1', 'u1');
      const tracker = { templateSlug: 'status-tracker', attributes: { title: 'Order', steps: 'a,b' }, contentState: { currentStep: '0', status: 'a' } };
      const id = (await start(h, 'a1', tracker)).body.activities[0].id;
      const cases: [unknown, string][] = [
        [{ contentState: { currentStep: '2', status: 'c' } }, 'contentState.currentStep must be an index of attributes.steps'],
        [{ contentState: { currentStep: '1' } }, 'contentState.status is required'],
        [{ contentState: { currentStep: '1', status: 'b', progress: '5' } }, 'contentState.progress is not a field of template status-tracker'],
        [{ contentState: { currentStep: 1, status: 'b' } }, 'contentState.currentStep must be a string'],
        // Whatever else the value is (the body schema takes the typed values of app-defined templates): the spec's text.
        [{ contentState: { currentStep: null, status: 'b' } }, 'contentState.currentStep must be a string'],
        [{ contentState: { currentStep: ['1'], status: { a: 1 } } }, 'contentState.currentStep must be a string'],
        [{}, 'contentState is required'],
        [{ contentState: { currentStep: '1', status: 'b' }, attributes: { title: 'New' } }, 'attributes cannot be changed'],
        [{ contentState: { currentStep: '1', status: 'b' }, extra: 1 }, 'extra is not a known field'],
        [{ contentState: { currentStep: '1', status: 'x'.repeat(4000) } }, 'payload exceeds 4096 bytes'],
      ];
      for (const [body, detail] of cases) {
        const res = await h.service('a1', 'PATCH', `${PATH}/${id}`, body);
        expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
      }
      expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { currentStep: '1', status: 'b' } })).status).toBe(200);
    });

    test('an unknown activity is 404 live activity not found', async () => {
      await setup();
      const res = await h.service('a1', 'PATCH', `${PATH}/la_nope`, { contentState: { progress: '1' } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ title: 'Not Found', status: 404, detail: 'live activity not found' });
    });
  });

  describe('the state machine', () => {
    test('Active → Ended by DELETE; then update and end are 409 and the record carries endedAt', async () => {
      await setup();
      const id = await one();
      h.clock.advance(90_000);
      const ended = await h.service('a1', 'DELETE', `${PATH}/${id}`);
      expect(ended.status).toBe(200);
      expect(ended.body).toEqual({ success: true });

      const record = await h.service('a1', 'GET', `${PATH}/${id}`);
      expect(record.body).toEqual({ id, appId: 'a1', endUserId: 'u1', templateSlug: 'progress-bar', state: 'Ended', platform: 'android', startedAt: NOW, endedAt: '2026-01-15T12:01:30.000Z' });

      const update = await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { progress: '99' } });
      expect(update.status).toBe(409);
      expect(update.body).toEqual({ title: 'Conflict', status: 409, detail: 'live activity is not active' });
      // An Ended activity refuses any update, even an invalid one.
      expect((await h.service('a1', 'PATCH', `${PATH}/${id}`, { contentState: { nope: 'x' } })).status).toBe(409);
      const again = await h.service('a1', 'DELETE', `${PATH}/${id}`);
      expect(again.body).toEqual({ title: 'Conflict', status: 409, detail: 'live activity is not active' });
      const [row] = await testRows<{ end_reason: string }>(h.ctx, 'SELECT end_reason FROM activities WHERE id = ?', [id]);
      expect(row?.end_reason).toBe('api');
    });

    test('ending an unknown activity is 404', async () => {
      await setup();
      const res = await h.service('a1', 'DELETE', `${PATH}/la_nope`);
      expect(res.body).toEqual({ title: 'Not Found', status: 404, detail: 'live activity not found' });
    });

    test('an Active record has no endedAt', async () => {
      await setup();
      const id = await one();
      const record = await h.service('a1', 'GET', `${PATH}/${id}`);
      expect(record.body).toEqual({ id, appId: 'a1', endUserId: 'u1', templateSlug: 'progress-bar', state: 'Active', platform: 'android', startedAt: NOW });
      expect((await h.service('a1', 'GET', `${PATH}/la_nope`)).body.detail).toBe('live activity not found');
    });
  });

  describe('listing live activities', () => {
    /** Starts activities for u0..u{n-1}, one a second, so that startedAt orders them. */
    async function startMany(n: number): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        ids.push(await one(`u${i}`));
        h.clock.advance(1000);
      }
      return ids;
    }

    test('newest first, limit 50 by default, total counts every activity and not the page', async () => {
      await setup();
      const ids = await startMany(55);
      const res = await h.service('a1', 'GET', PATH);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(55);
      expect(res.body.activities.map((a: { id: string }) => a.id)).toEqual(ids.toReversed().slice(0, 50));
      const page = await h.service('a1', 'GET', `${PATH}?limit=10&offset=50`);
      expect(page.body.activities.map((a: { id: string }) => a.id)).toEqual(ids.toReversed().slice(50));
      expect(page.body.total).toBe(55);
      const beyond = await h.service('a1', 'GET', `${PATH}?offset=100`);
      expect(beyond.body).toEqual({ activities: [], total: 55 });
    }, 30_000);

    test('activities started together are ordered by id, descending', async () => {
      await setup();
      for (const u of ['u1', 'u2', 'u3']) await connect(h, 'a1', u);
      const started = (await start(h, 'a1')).body.activities.map((a: { id: string }) => a.id);
      const listed = (await h.service('a1', 'GET', PATH)).body.activities.map((a: { id: string }) => a.id);
      expect(listed).toEqual([...started].sort().reverse());
    });

    test('limit and offset out of bounds are 400 naming the parameter', async () => {
      await setup();
      const cases: [string, string][] = [
        ['limit=0', 'limit must be an integer from 1 to 100'],
        ['limit=101', 'limit must be an integer from 1 to 100'],
        ['offset=-1', 'offset must be an integer from 0 to 1000000'],
        ['limit=ten', 'limit must be an integer from 1 to 100'],
        ['offset=1.5', 'offset must be an integer from 0 to 1000000'],
        ['state=Paused', 'state must be one of Scheduled, Active, Ended'],
      ];
      for (const [query, detail] of cases) {
        const res = await h.service('a1', 'GET', `${PATH}?${query}`);
        expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 400, body: { title: 'Bad Request', status: 400, detail } });
      }
      expect((await h.service('a1', 'GET', `${PATH}?limit=1&offset=0`)).status).toBe(200);
      expect((await h.service('a1', 'GET', `${PATH}?limit=100`)).status).toBe(200);
    });

    test('filters by state, end user and template; Ended records carry endedAt; total follows the filters', async () => {
      await setup();
      const [a, b, c] = await startMany(3);
      await connect(h, 'a1', 'u9');
      const banner = (await start(h, 'a1', { templateSlug: 'image-banner', contentState: { title: 'Hi' }, targetUsers: ['u9'] })).body.activities[0].id;
      await h.service('a1', 'DELETE', `${PATH}/${b}`);

      const ended = await h.service('a1', 'GET', `${PATH}?state=Ended`);
      expect(ended.body.total).toBe(1);
      expect(ended.body.activities[0]).toMatchObject({ id: b, state: 'Ended', endedAt: '2026-01-15T12:00:03.000Z' });
      const active = await h.service('a1', 'GET', `${PATH}?state=Active`);
      expect(active.body.activities.map((x: { id: string }) => x.id)).toEqual([banner, c, a]);
      expect(active.body.activities.every((x: object) => !('endedAt' in x))).toBe(true);
      expect((await h.service('a1', 'GET', `${PATH}?endUserId=u0`)).body.activities.map((x: { id: string }) => x.id)).toEqual([a]);
      const byTemplate = await h.service('a1', 'GET', `${PATH}?templateSlug=image-banner`);
      expect(byTemplate.body).toMatchObject({ total: 1, activities: [{ id: banner }] });
      expect((await h.service('a1', 'GET', `${PATH}?templateSlug=progress-bar&state=Active`)).body.total).toBe(2);
    }, 30_000);
  });

  describe('authentication and isolation between apps', () => {
    test('every endpoint needs the service key, checked before the body', async () => {
      await setup();
      const calls: [string, string, unknown][] = [
        ['POST', PATH, { nonsense: true }],
        ['GET', PATH, undefined],
        ['GET', `${PATH}/la_x`, undefined],
        ['PATCH', `${PATH}/la_x`, { attributes: {} }],
        ['DELETE', `${PATH}/la_x`, undefined],
        ['PUT', `${PATH}/la_x/push-token`, {}],
      ];
      for (const [method, path, body] of calls) {
        const res = await h.request(method, path, body === undefined ? {} : { body });
        expect({ method, path, status: res.status, body: res.body }).toEqual({
          method,
          path,
          status: 401,
          // The push token may also come from the device itself, signed for its end user.
          body: { title: 'Unauthorized', status: 401, detail: path.endsWith('/push-token') ? 'X-Service-Key or X-End-User-Signature header is required' : 'X-Service-Key header is required' },
        });
      }
    });

    test("another app's key is 401 on this app's paths; this app's activity is 404 on the other app's paths", async () => {
      await setup();
      const { appSecret } = await h.createApp({ id: 'a2' });
      const id = await one();
      const other = { 'x-service-key': appSecret };
      const foreign = await h.request('GET', PATH, { headers: other });
      expect(foreign.body).toEqual({
        title: 'Unauthorized',
        status: 401,
        detail: 'invalid service key',
        appId: 'a1',
        keyAppId: 'a2',
        hint: 'X-Service-Key is the App Secret of app a2, not of a1: check the app id in the path',
      });
      expect((await h.request('DELETE', `${PATH}/${id}`, { headers: other })).status).toBe(401);

      const a2 = activitiesPath('a2');
      for (const [method, path, body] of [
        ['GET', `${a2}/${id}`, undefined],
        ['PATCH', `${a2}/${id}`, { contentState: { progress: '1' } }],
        ['DELETE', `${a2}/${id}`, undefined],
        ['PUT', `${a2}/${id}/push-token`, { token: apnsToken('abc') }],
      ] as const) {
        const res = await h.service('a2', method, path, body);
        expect({ method, status: res.status, detail: res.body.detail }).toEqual({ method, status: 404, detail: 'live activity not found' });
      }
      expect((await h.service('a2', 'GET', a2)).body).toEqual({ activities: [], total: 0 });
      expect((await h.service('a1', 'GET', `${PATH}/${id}`)).body.state).toBe('Active');
    });
  });
});
