import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../app';
import type { AppContext } from '../../context';
import { until } from '../../test-support/eventually';
import { ADMIN_TOKEN, createHarness } from '../../test-support/harness';
import { instanceBeside } from '../../test-support/instance-beside';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';
import { APP_ROW_TTL_MS } from './app-row-cache';

beforeAll(() => sharedPostgres().then(() => undefined), POSTGRES_STARTUP_TIMEOUT_MS);

/** Generously: a notification takes a round trip through PostgreSQL. */
const WAIT = { timeoutMs: 20_000, intervalMs: 5 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The API of one instance: `list` with a service key (its status), `rotate` the App Secret (the new one). */
function api(ctx: AppContext) {
  const app = createApp(ctx);
  return {
    list: async (key: string) => (await app.handle(new Request('http://islet.test/api/apps/shop/live-activities', { headers: { 'x-service-key': key } }))).status,
    async rotate(): Promise<string> {
      const res = await app.handle(new Request('http://islet.test/api/admin/apps/shop/secrets/app-secret', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }));
      expect(res.status).toBe(200);
      return ((await res.json()) as { appSecret: string }).appSecret;
    },
  };
}

/** Instances A and B on one PostgreSQL, B hearing no notification, and app shop's App Secret. */
async function deafB() {
  const h = await createHarness({ database: 'postgres' });
  cleanups.push(() => h.close());
  const a = api(await instanceBeside(h, cleanups));
  const b = api(await instanceBeside(h, cleanups, false));
  const { appSecret: old } = await h.createApp({ id: 'shop' });
  return { h, a, b, old };
}

describe('the app rows authentication keeps, on two instances of one PostgreSQL', () => {
  test(
    'an App Secret rotated through A is refused by B once the notification arrives, the clock standing still (no backstop)',
    async () => {
      const h = await createHarness({ database: 'postgres' });
      cleanups.push(() => h.close());
      const [a, b] = [api(await instanceBeside(h, cleanups)), api(await instanceBeside(h, cleanups))];
      const { appSecret: old } = await h.createApp({ id: 'shop' });
      expect(await b.list(old)).toBe(200);
      expect(await b.list(old)).toBe(200);
      const fresh = await a.rotate();
      expect(await a.list(old)).toBe(401);
      await until('B refuses the old key', async () => (await b.list(old)) === 401, WAIT);
      expect(await b.list(fresh)).toBe(200);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a notification B never hears (a lost one): B accepts the old key for at most APP_ROW_TTL_MS, then refuses it',
    async () => {
      const { h, a, b, old } = await deafB();
      expect(await b.list(old)).toBe(200);
      const fresh = await a.rotate();
      expect(await a.list(old)).toBe(401);
      // The bound the README states: the row B read before the rotation, within the backstop.
      expect(await b.list(old)).toBe(200);
      h.clock.advance(APP_ROW_TTL_MS);
      expect(await b.list(old)).toBe(401);
      expect(await b.list(fresh)).toBe(200);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'the new App Secret works on B at once, heard or not: a key the kept row refuses is checked against the database',
    async () => {
      const { a, b, old } = await deafB();
      expect(await b.list(old)).toBe(200);
      const fresh = await a.rotate();
      expect(await b.list(fresh)).toBe(200);
      // B read the row again: the old key goes with it.
      expect(await b.list(old)).toBe(401);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
