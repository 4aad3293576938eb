import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createIsletClient, type IsletClient } from '../../client/islet-client';
import { startFcmStandin, type FcmStandin } from '../../test-support/fcm-standin';
import type { SpawnedServer } from '../../test-support/spawn-server';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { forEachDatabase } from '../../test-support/databases';
import { until } from '../../test-support/eventually';

forEachDatabase('streams-e2e', (database) => {
  const APP = 'streams';
  const SECRET = 'sk_streams_e2e';
  let served: ServedApp;
  let fcm: FcmStandin;
  let server: SpawnedServer;
  let islet: IsletClient;

  beforeAll(async () => {
    fcm = await startFcmStandin();
    served = await serveApp({
      app: APP,
      secret: SECRET,
      more: `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'firebase.json': JSON.stringify(fcm.serviceAccount('streams-project')) },
    });
    server = served.server;
    islet = createIsletClient({ baseUrl: server.url, serviceKey: SECRET });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await fcm?.close();
  }, 30_000);

  /** FCM messages received so far, as `event activityId`, once `count` have arrived. */
  async function received(count: number): Promise<string[]> {
    await until(`the FCM stand-in has ${count} messages`, () => fcm.requests.length >= count, { intervalMs: 50 });
    return fcm.requests.map((r) => `${r.body.message.data.event} ${r.body.message.data.activityId}`);
  }

  describe('activity streams through a real server process, with the typed client', () => {
    test('started → updated → noop → DELETE: the FCM stand-in gets start, update and end, and nothing for the noop', async () => {
      const device = await islet.POST('/api/apps/{appId}/devices', {
        params: { path: { appId: APP } },
        body: { endUserId: 'rider-1', platform: 'android', token: 'fcm-rider-1' },
      });
      expect(device.response.status).toBe(200);
      const path = { appId: APP, key: 'ride:77' };
      const put = (contentState: Record<string, string>) =>
        islet.PUT('/api/apps/{appId}/live-activity-streams/{key}', {
          params: { path },
          body: { templateSlug: 'status-tracker', attributes: { title: 'Your ride', steps: 'Assigned,Arriving,Riding' }, contentState },
        });

      const started = await put({ currentStep: '0', status: 'Driver assigned' });
      expect(started.error).toBeUndefined();
      expect(started.data?.status).toBe('started');
      const [activityId] = started.data!.activityIds;
      expect(await received(1)).toEqual([`start ${activityId}`]);

      const updated = await put({ currentStep: '1', status: 'Arriving', eta: '3 min' });
      expect(updated.data).toEqual({ status: 'updated', activityIds: [activityId!] });
      expect(await received(2)).toEqual([`start ${activityId}`, `update ${activityId}`]);

      const noop = await put({ eta: '3 min', status: 'Arriving', currentStep: '1' });
      expect(noop.data?.status).toBe('noop');

      const shown = await islet.GET('/api/apps/{appId}/live-activity-streams/{key}', { params: { path } });
      expect(shown.data).toMatchObject({ key: 'ride:77', state: 'Active', activityIds: [activityId] });

      const ended = await islet.DELETE('/api/apps/{appId}/live-activity-streams/{key}', { params: { path } });
      expect(ended.data).toEqual({ activityIds: [activityId!] });
      // The end is the third message: nothing went out for the noop in between.
      expect(await received(3)).toEqual([`start ${activityId}`, `update ${activityId}`, `end ${activityId}`]);

      const gone = await islet.GET('/api/apps/{appId}/live-activity-streams/{key}', { params: { path } });
      expect(gone.response.status).toBe(404);
      expect(gone.error).toEqual({ title: 'Not Found', status: 404, detail: 'activity stream not found' });
    }, 30_000);

    test('the client does not compile a path the API does not have', () => {
      // Checked by `npm run typecheck`: the call is never made.
      // @ts-expect-error an unknown path
      const unknown = () => islet.GET('/api/apps/{appId}/no-such-thing', {});
      expect(typeof unknown).toBe('function');
    });
  });
});
