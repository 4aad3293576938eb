import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../app';
import { postgresSettings } from '../../db/postgres/connection';
import { eventStream } from '../../modules/console/console-events';
import { createDeliveryEngine, type DeliveryEngine } from '../../modules/delivery/delivery.engine';
import { apnsToken, startApnsStandin } from '../../test-support/apns-standin';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { ADMIN_TOKEN, createHarness } from '../../test-support/harness';
import { instanceBeside } from '../../test-support/instance-beside';
import { testRows } from '../../test-support/test-sql';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';
import { notifyInstances } from './notifications';
import { until } from '../../test-support/eventually';

beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);

/** Generously: a notification takes a round trip through PostgreSQL. */
const WAIT = { timeoutMs: 20_000, intervalMs: 5 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('changes that reach every instance at once (PostgreSQL)', () => {
  test(
    'APNs credentials changed through A: B’s delivery worker forgets what it knew of the old endpoint (down)',
    async () => {
      const h = await createHarness({ database: 'postgres' });
      cleanups.push(() => h.close());
      const [a, b] = [await instanceBeside(h, cleanups), await instanceBeside(h, cleanups)];
      await h.createApp({ id: 'demo' });
      const key = apnsKey();
      const credentials = (endpoint: string) => ({ bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint });
      const put = (endpoint: string) =>
        createApp(a).handle(
          new Request('http://islet.test/api/admin/apps/demo/apns', {
            method: 'PUT',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify(credentials(endpoint)),
          }),
        );
      expect((await put('https://127.0.0.1:1')).status).toBe(200);
      // B's worker found the old endpoint down (B's own view: what its sends answered).
      const engine: DeliveryEngine = createDeliveryEngine(b, { health: { downAfterMs: 0 } });
      const health = b.endpointHealth;
      cleanups.push(() => engine.stop());
      engine.start();
      const old = { appId: 'demo', provider: 'apns' as const, endpoint: 'https://127.0.0.1:1' };
      for (let i = 0; i < 3; i++) health.connectionFailed(old, 'refused', false);
      expect(health.list('demo').map((s) => s.state)).toEqual(['down']);
      expect((await put('https://127.0.0.1:2')).status).toBe(200);
      await until('B forgets the old endpoint', () => health.list('demo').length === 0, WAIT);
      expect(health.admit(old, undefined, h.clock.now())).toEqual({ go: true, probe: false });
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'credentials changed through A: B sends what an instance that died had parked on the paused channel',
    async () => {
      const h = await createHarness({ database: 'postgres' });
      cleanups.push(() => h.close());
      const [a, b] = [await instanceBeside(h, cleanups), await instanceBeside(h, cleanups)];
      const key = apnsKey();
      const standin = await startApnsStandin({ keys: [key], clock: h.clock });
      cleanups.push(() => standin.close());
      const { appSecret } = await h.createApp({ id: 'demo' });
      const put = () =>
        createApp(a).handle(
          new Request('http://islet.test/api/admin/apps/demo/apns', {
            method: 'PUT',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: standin.url, ca: standin.ca }),
          }),
        );
      expect((await put()).status).toBe(200);
      // B runs and has looked: nothing parked. It polls only once an hour: only a wake-up makes it look.
      const engine = createDeliveryEngine(b, { pollMs: 3_600_000 });
      cleanups.push(() => engine.stop());
      engine.start();
      await engine.drain();
      // Then another instance (since died) found the credentials refused: channel paused, push parked.
      // (Queued through an instance whose wake-ups stay its own: B must not hear of the push itself.)
      const dead = createApp(await instanceBeside(h, cleanups, false));
      const call = async (path: string, body: unknown, auth: Record<string, string>) =>
        (await dead.handle(new Request(`http://islet.test${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) }))).status;
      const service = { 'x-service-key': appSecret };
      expect(await call('/api/admin/apps/demo/releases', { version: 1, status: 'Live', templates: [{ slug: 'alert', title: 'parked', body: 'x' }] }, { authorization: `Bearer ${ADMIN_TOKEN}` })).toBe(201);
      expect(await call('/api/apps/demo/devices', { endUserId: 'u1', platform: 'ios', token: apnsToken('parked') }, service)).toBe(200);
      expect(await call('/api/apps/demo/notifications/send', { templateSlug: 'alert' }, service)).toBe(200);
      await testRows(h.ctx, `UPDATE deliveries SET status = 'held', hold_kind = 'apns_paused', reason = 'apns channel paused'`);
      await testRows(h.ctx, `UPDATE apps SET apns_paused_reason = 'InvalidProviderToken'`);
      expect(standin.requests.length).toBe(0);
      expect((await put()).status).toBe(200);
      await until('B sends the parked push', () => standin.requests.some((r) => r.raw.includes('parked')), WAIT);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'islet admin-token reset (the command line, no instance): a console event stream on B checks its session at once',
    async () => {
      const h = await createHarness({ database: 'postgres' });
      cleanups.push(() => h.close());
      const b = await instanceBeside(h, cleanups);
      let signedIn = true;
      const abort = new AbortController();
      cleanups.push(async () => abort.abort());
      // A heartbeat far beyond the test's wait: only the wake-up can end the stream in time.
      const response = eventStream(b.coordination.wakeUps, abort.signal, async () => signedIn, { gapMs: 500, heartbeatMs: 3_600_000 });
      const reader = response.body!.getReader();
      let text = '';
      const read = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      })();
      await until('the stream opens', () => text.includes('event: ready'), WAIT);
      signedIn = false;
      await notifyInstances(postgresSettings(h.ctx.config)!, 'admin-token-changed');
      await read;
      expect(text).toContain('event: signed-out');
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
