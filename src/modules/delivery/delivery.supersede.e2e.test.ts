import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { until } from '../../test-support/eventually';
import { startFcmStandin, type FcmAnswer, type FcmStandin } from '../../test-support/fcm-standin';
import type { SpawnedServer } from '../../test-support/spawn-server';
import { serveApp, type ServedApp } from '../../test-support/served-app';
import { serverClient } from '../../test-support/server-client';
import { forEachDatabase } from '../../test-support/databases';
import { unlabelled } from '../../test-support/metrics-text';

forEachDatabase('supersede-e2e', (database) => {
  const SECRET = 'sk_supersede_e2e';
  let served: ServedApp;
  let fcm: FcmStandin;
  let server: SpawnedServer;

  beforeAll(async () => {
    fcm = await startFcmStandin();
    served = await serveApp({
      app: 'sup',
      secret: SECRET,
      more: `[apps.fcm]\nservice_account_file = "firebase.json"\nendpoint = "${fcm.url}"\n`,
      files: { 'firebase.json': JSON.stringify(fcm.serviceAccount('supersede-project')) },
    });
    server = served.server;
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await fcm?.close();
  }, 30_000);

  const { call, admin } = serverClient(() => server.url, SECRET, 't');

  /** The shared until, a failure showing the server's output. */
  const waitUntil = (what: string, check: () => Promise<boolean> | boolean) => until(what, check, { intervalMs: 20, detail: () => `server output:\n${server.output()}` });

  const progressSent = () => fcm.requests.map((r) => JSON.parse(r.body.message.data.contentState).progress as string);

  describe('latest wins through a real server process', () => {
    test('an Android update in flight that FCM answers "try again" after a newer update was queued is superseded, so the phone never gets old state last', async () => {
      expect((await call('POST', '/api/apps/sup/devices', { endUserId: 'u1', platform: 'android', token: 'fcm-supersede-1' })).status).toBe(200);
      const started = await call('POST', '/api/apps/sup/live-activities', { templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '10' }, targetUsers: ['u1'] });
      expect(started.status).toBe(200);
      const id = started.body.activities[0].id as string;
      await waitUntil('the first update went', () => progressSent().length === 1);

      let answer: ((a: FcmAnswer) => void) | undefined;
      // FCM holds the first send of the first update until the test answers it.
      fcm.respond((req) => (answer === undefined && JSON.parse(req.body.message.data.contentState).progress === '20' ? new Promise<FcmAnswer>((r) => (answer = r)) : undefined));
      expect((await call('PATCH', `/api/apps/sup/live-activities/${id}`, { contentState: { progress: '20' } })).status).toBe(200);
      await waitUntil('the provider holds the update', () => answer !== undefined);
      expect((await call('PATCH', `/api/apps/sup/live-activities/${id}`, { contentState: { progress: '30' } })).status).toBe(200);
      answer!({ status: 503, rpcStatus: 'UNAVAILABLE' });

      const deliveries = async () => (await admin('GET', `/api/admin/apps/sup/live-activities/${id}/deliveries`)).body.deliveries as { kind: string; status: string; reason: string | null }[];
      // Settled: the first update is superseded (or, without latest wins, sent again after the second).
      await waitUntil('every delivery is settled and 30 went', async () => (await deliveries()).every((d) => d.status === 'sent' || d.status === 'superseded') && progressSent().includes('30'));
      expect((await deliveries()).map((d) => [d.kind, d.status])).toEqual([
        ['la_update', 'sent'],
        ['la_update', 'superseded'],
        ['la_start', 'sent'],
      ]);
      expect(progressSent()).toEqual(['10', '20', '30']);
      const metrics = unlabelled((await call('GET', '/metrics')).body);
      expect(metrics).toContain('islet_deliveries_total{app="sup",provider="fcm",kind="la_update",outcome="superseded"} 1');
    }, 30_000);
  });
});
