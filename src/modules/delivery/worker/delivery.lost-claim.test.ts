import { afterEach, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { apnsKey } from '../../../test-support/delivery-fixtures';
import { createHarness } from '../../../test-support/harness';
import { POSTGRES_TEST_TIMEOUT_MS } from '../../../test-support/postgres';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';

const DEVICES = 300;
const TEMPLATE = { slug: 'hello', title: 'Hello {{ name }}', body: 'Something happened' };

let apns: ApnsStandin | undefined;
let engine: DeliveryEngine | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await engine?.stop().catch(() => {});
  await apns?.close();
  await close?.();
  [apns, engine, close] = [undefined, undefined, undefined];
});

forEachDatabase('a claim whose answer was lost', (database) => {
  test('its deliveries are claimed again and sent, not left sending while the instance lives', async () => {
    const h = await createHarness({ database });
    close = () => h.close();
    const key = apnsKey();
    apns = await startApnsStandin({ keys: [key], clock: h.clock });
    await h.createApp({ id: 'demo' });
    await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: apns.url, ca: apns.ca });
    expect((await h.admin('POST', '/api/admin/apps/demo/releases', { version: 1, status: 'Live', templates: [TEMPLATE] })).status).toBeLessThan(300);
    for (let i = 0; i < DEVICES; i++) expect((await h.service('demo', 'POST', '/api/apps/demo/devices', { endUserId: `u${i}`, platform: 'ios', token: apnsToken() })).status).toBe(200);
    const sent = await h.service('demo', 'POST', '/api/apps/demo/notifications/send', { templateSlug: 'hello', variables: { name: 'Ada' } });
    expect(sent.body.messageCount).toBe(DEVICES);

    // The first claim commits and then fails, as when PostgreSQL restarts before its answer arrives.
    const repo = h.ctx.db.repos.deliveries;
    let claims = 0;
    const store = {
      claim: async (now: number, limit: number) => {
        const rows = await repo.claim(now, limit);
        if (++claims === 1) throw new Error('Connection closed');
        return rows;
      },
      record: async (results: Parameters<typeof repo.record>[0], now: number) => repo.record(results, now),
      close: async () => {},
    };
    engine = createDeliveryEngine(h.ctx, { batchSize: 100, maxInFlight: 100, pollMs: 20, store });
    engine.start();
    const deadline = Date.now() + 20_000;
    while (new Set(apns.requests.map((r) => r.token)).size < DEVICES && Date.now() < deadline) await Bun.sleep(20);
    expect(claims).toBeGreaterThan(1);
    expect(new Set(apns.requests.map((r) => r.token)).size).toBe(DEVICES);
  }, POSTGRES_TEST_TIMEOUT_MS);
});
