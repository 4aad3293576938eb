import { afterEach, expect, test } from 'bun:test';
import { apnsToken, startApnsStandin, type ApnsStandin } from '../../../test-support/apns-standin';
import { forEachDatabase } from '../../../test-support/databases';
import { apnsKey } from '../../../test-support/delivery-fixtures';
import { createHarness } from '../../../test-support/harness';
import { POSTGRES_TEST_TIMEOUT_MS } from '../../../test-support/postgres';
import { createDeliveryEngine, type DeliveryEngine } from '../delivery.engine';
import { appsRepository } from '../../apps/apps.repository';
import { deliveriesRepository } from './delivery.repository';

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

/** An app sending to the APNs stand-in, and a notification queued to DEVICES devices. */
async function queued(database: 'sqlite' | 'postgres') {
  const h = await createHarness({ database });
  close = () => h.close();
  const key = apnsKey();
  const standin = await startApnsStandin({ keys: [key], clock: h.clock });
  apns = standin;
  await h.createApp({ id: 'demo' });
  await h.admin('PUT', '/api/admin/apps/demo/apns', { bundleId: 'com.x', teamId: key.teamId, keyId: key.keyId, key: key.key, endpoint: standin.url, ca: standin.ca });
  expect((await h.admin('POST', '/api/admin/apps/demo/releases', { version: 1, status: 'Live', templates: [TEMPLATE] })).status).toBeLessThan(300);
  for (let i = 0; i < DEVICES; i++) expect((await h.service('demo', 'POST', '/api/apps/demo/devices', { endUserId: `u${i}`, platform: 'ios', token: apnsToken() })).status).toBe(200);
  const sent = await h.service('demo', 'POST', '/api/apps/demo/notifications/send', { templateSlug: 'hello', variables: { name: 'Ada' } });
  expect(sent.body.messageCount).toBe(DEVICES);
  return { h, standin };
}

/** Distinct tokens the stand-in received, once all arrived or after 20 s. */
async function received(standin: ApnsStandin): Promise<number> {
  const distinct = () => new Set(standin.requests.map((r) => r.token)).size;
  const deadline = Date.now() + 20_000;
  while (distinct() < DEVICES && Date.now() < deadline) await Bun.sleep(20);
  return distinct();
}

forEachDatabase('a claim whose answer was lost', (database) => {
  test('its deliveries are claimed again and sent, not left sending while the instance lives', async () => {
    const { h, standin } = await queued(database);
    // The first claim commits and then fails, as when PostgreSQL restarts before its answer arrives.
    const repo = deliveriesRepository(h.ctx.db.sql);
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
    expect(await received(standin)).toBe(DEVICES);
    expect(claims).toBeGreaterThan(1);
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('deliveries claimed just before the database went away (their app could not be read) are claimed again and sent', async () => {
    const { h, standin } = await queued(database);
    const apps = appsRepository(h.ctx.db.sql);
    const find = apps.find.bind(apps);
    let lookups = 0;
    apps.find = async (id: string) => {
      if (++lookups === 1) throw new Error('Connection closed');
      return find(id);
    };
    engine = createDeliveryEngine(h.ctx, { batchSize: 100, maxInFlight: 100, pollMs: 20 });
    engine.start();
    expect(await received(standin)).toBe(DEVICES);
    expect(lookups).toBeGreaterThan(1);
  }, POSTGRES_TEST_TIMEOUT_MS);

  test('claiming ahead (PostgreSQL’s default): the next batch is claimed while the last is dispatched, each delivery sent once; when dispatching fails, both batches are claimed again', async () => {
    const { h, standin } = await queued(database);
    const repo = deliveriesRepository(h.ctx.db.sql);
    // What happens in order: claims starting and ending, and each dispatch reading its app.
    const events: string[] = [];
    const store = {
      claim: async (now: number, limit: number) => {
        events.push('claim');
        const rows = await repo.claim(now, limit);
        events.push(`claimed ${rows.length}`);
        return rows;
      },
      record: async (results: Parameters<typeof repo.record>[0], now: number) => repo.record(results, now),
      close: async () => {},
    };
    // The first dispatch cannot read its app: its batch and the one claimed ahead of it go back.
    const apps = appsRepository(h.ctx.db.sql);
    const find = apps.find.bind(apps);
    let lookups = 0;
    apps.find = async (id: string) => {
      events.push('dispatch');
      if (++lookups === 1) throw new Error('Connection closed');
      return find(id);
    };
    engine = createDeliveryEngine(h.ctx, { batchSize: 50, maxInFlight: 300, pollMs: 20, store, claimAhead: true });
    engine.start();
    expect(await received(standin)).toBe(DEVICES);
    expect(standin.requests.length).toBe(DEVICES);
    // A full batch claimed, the next claim starts before that batch is dispatched (without claiming ahead: after).
    expect(events.slice(0, 4)).toEqual(['claim', 'claimed 50', 'claim', 'dispatch']);
    expect(events.join(', ')).toContain('claimed 50, claim, dispatch, claimed 50, claim, dispatch');
  }, POSTGRES_TEST_TIMEOUT_MS);
});
