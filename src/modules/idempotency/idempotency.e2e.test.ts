import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createIsletClient, type IsletClient } from '../../client/islet-client';
import type { SpawnedServer } from '../../test-support/spawn-server';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { forEachDatabase } from '../../test-support/databases';

forEachDatabase('idempotency-e2e', (database) => {
  const SECRET = 'sk_idempotency_e2e';
  let served: ServedApp;
  let server: SpawnedServer;
  let islet: IsletClient;

  beforeAll(async () => {
    served = await serveApp({ app: 'idem', secret: SECRET });
    server = served.server;
    islet = createIsletClient({ baseUrl: server.url, serviceKey: SECRET });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
  }, 30_000);

  describe('Idempotency-Key through a real server process', () => {
    test('a replayed start creates one activity and answers the same body with Idempotent-Replayed: true; a changed body is 422', async () => {
      const params = { path: { appId: 'idem' } };
      expect((await islet.POST('/api/apps/{appId}/devices', { params, body: { endUserId: 'u1', platform: 'android', token: 'tok-u1' } })).response.status).toBe(200);
      const body = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' }, targetUsers: ['u1'] };
      const start = (contentState = body.contentState) =>
        islet.POST('/api/apps/{appId}/live-activities', { params: { ...params, header: { 'Idempotency-Key': 'order-42' } }, body: { ...body, contentState } });

      const first = await start();
      expect(first.response.status).toBe(200);
      expect(first.response.headers.get('idempotent-replayed')).toBeNull();
      const again = await start();
      expect(again.response.status).toBe(200);
      expect(again.response.headers.get('idempotent-replayed')).toBe('true');
      expect(again.response.headers.get('content-type')).toContain('application/json');
      expect(again.data).toEqual(first.data!);

      const changed = await start({ value: '2' });
      expect(changed.response.status).toBe(422);
      expect(changed.error?.detail).toContain('different request');

      const list = await islet.GET('/api/apps/{appId}/live-activities', { params });
      expect(list.data?.total).toBe(1);
    });
  });
});
