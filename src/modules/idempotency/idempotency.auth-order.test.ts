import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../db/sqlite/store';
import { silentLogger } from '../../lib/logger';
import { ADMIN_TOKEN, createHarness, type Harness } from '../../test-support/harness';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { idempotencyRepository } from './idempotency.repository';

/**
 * Authentication (and finding the app) comes before the Idempotency-Key: every operation of the
 * served OpenAPI document, called with a key and no, wrong or another app's credentials, answers
 * without a 5xx and leaves nothing in the idempotency table; a refused request's key stays free
 * for the real call.
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const APP = 'order';
const SECRET = 'sk_auth_order_test_secret';
const APP_TOML = `\n[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\n`;

interface Operation {
  method: string;
  /** The path template, e.g. /api/apps/{appId}/devices/{deviceId}. */
  path: string;
  secured: boolean;
  body: unknown;
}

/** Every operation of the document, with an example body (or `{}`) for those that take one. */
function operations(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => {
        const json = op.requestBody?.content?.['application/json'];
        const example = json?.example ?? Object.values(json?.examples ?? {}).map((e: any) => e.value)[0];
        return { method: method.toUpperCase(), path, secured: isSecured(op.security ?? doc.security ?? []), body: json ? (example ?? {}) : undefined };
      }),
  );
}

/** The credentials of each case; `appId` is the app the path names. */
const CASES = {
  none: { appId: APP, headers: {} },
  wrong: { appId: APP, headers: { 'x-service-key': 'sk_wrong', authorization: 'Bearer wrong-token' } },
  'wrong-signature': { appId: APP, headers: { 'x-end-user-signature': 'ab'.repeat(32) } },
  // Valid credentials of a real app (and the admin's), for an app id that does not exist.
  'unknown-app': { appId: 'nosuchapp', headers: { 'x-service-key': SECRET, authorization: `Bearer ${ADMIN_TOKEN}` } },
} as const;

type Send = (method: string, path: string, headers: Record<string, string>, body: unknown) => Promise<number>;

/** Calls every operation in every case with an Idempotency-Key; returns "case method path status" of each call. */
async function walk(doc: any, send: Send, beforeEach: () => void = () => {}): Promise<{ call: string; status: number; secured: boolean; caseName: string }[]> {
  const calls = [];
  for (const [caseName, c] of Object.entries(CASES)) {
    for (const op of operations(doc)) {
      // With valid credentials only the unknown app is under test: paths without an app would do real work.
      if (caseName === 'unknown-app' && !op.path.includes('{appId}')) continue;
      const path = op.path.replace('{appId}', c.appId).replace(/\{[^}]+\}/g, 'x1');
      const headers: Record<string, string> = { ...c.headers, 'idempotency-key': `${caseName} ${op.method} ${op.path}` };
      beforeEach();
      const status = await send(op.method, path, headers, op.body);
      calls.push({ call: `${caseName} ${op.method} ${op.path} -> ${status}`, status, secured: op.secured, caseName });
    }
  }
  return calls;
}

function expectRefused(calls: Awaited<ReturnType<typeof walk>>) {
  expect(calls.length).toBeGreaterThan(100);
  expect(calls.filter((c) => c.status >= 500).map((c) => c.call)).toEqual([]);
  // No, wrong credentials: every secured operation is refused by its authentication.
  expect(calls.filter((c) => c.caseName !== 'unknown-app' && c.secured && c.status !== 401).map((c) => c.call)).toEqual([]);
}

describe('Idempotency-Key after authentication (app.handle)', () => {
  let h: Harness;
  afterEach(() => h.close());

  test('every operation of the OpenAPI document, with a key and no, wrong or another app’s credentials: no 5xx, nothing stored', async () => {
    h = await createHarness({ toml: APP_TOML });
    const doc = (await h.request('GET', '/swagger/json')).body;
    const calls = await walk(
      doc,
      async (method, path, headers, body) => (await h.request(method, path, { headers, ...(body === undefined ? {} : { body }) })).status,
      // Past the failure throttle's window, so each refusal is a 401 and not a 429.
      () => h.clock.advance(61 * 60_000),
    );
    expectRefused(calls);
    expect(await idempotencyRepository(h.ctx.db.sql).all()).toEqual([]);
  });

  test('an unauthenticated DELETE of a device with a key, then the authenticated one with the same key, deletes the device', async () => {
    h = await createHarness({ toml: APP_TOML });
    const key = { 'x-service-key': SECRET };
    const deviceId = (await h.request('POST', `/api/apps/${APP}/devices`, { headers: key, body: { endUserId: 'u1', platform: 'android', token: 'tok-u1' } })).body.device.id;
    const path = `/api/apps/${APP}/devices/${deviceId}`;
    const refused = await h.request('DELETE', path, { headers: { 'idempotency-key': 'k1' } });
    expect([refused.status, refused.body.detail]).toEqual([401, 'X-Service-Key or X-End-User-Signature header is required']);
    expect((await h.request('DELETE', `/api/apps/nosuchapp/devices/${deviceId}`, { headers: { 'idempotency-key': 'k1', 'x-service-key': SECRET } })).status).toBe(401);
    const deleted = await h.request('DELETE', path, { headers: { 'idempotency-key': 'k1', 'x-service-key': SECRET } });
    expect([deleted.status, deleted.body, deleted.headers.get('idempotent-replayed')]).toEqual([200, { success: true }, null]);
    expect((await h.admin('GET', `/api/admin/apps/${APP}/devices`)).body.devices).toEqual([]);
    // The authenticated answer is the one kept: a repeat replays it.
    const again = await h.request('DELETE', path, { headers: { 'idempotency-key': 'k1', 'x-service-key': SECRET } });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
  });
});

describe('Idempotency-Key after authentication (served process)', () => {
  let dir: string;
  let server: SpawnedServer | undefined;
  let dbPath: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-auth-order-'));
    dbPath = join(dir, 'i.db');
    // Each request comes from a loopback address of its own (X-Forwarded-For from a trusted proxy), so
    // no refusal is throttled into a 429.
    server = await spawnServer(
      dir,
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\ntrusted_proxies = ["127.0.0.1"]\n[admin]\ntoken = "${ADMIN_TOKEN}"\n` +
        `[database]\npath = "${dbPath}"${APP_TOML}`,
    );
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  let address = 0;
  const send: Send = async (method, path, headers, body) => {
    address++;
    const res = await fetch(`${server!.url}${path}`, {
      method,
      headers: { ...headers, 'x-forwarded-for': `127.0.${address >> 8}.${(address & 255) || 1}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  };

  test('every operation, with a key and no, wrong or another app’s credentials: no 5xx; the refused DELETE’s key stays free; nothing stored', async () => {
    const doc = await (await fetch(`${server!.url}/swagger/json`)).json();
    expectRefused(await walk(doc, send));

    const registered = await fetch(`${server!.url}/api/apps/${APP}/devices`, {
      method: 'POST',
      headers: { 'x-service-key': SECRET, 'content-type': 'application/json' },
      body: JSON.stringify({ endUserId: 'u1', platform: 'android', token: 'tok-u1' }),
    });
    const deviceId = ((await registered.json()) as { device: { id: string } }).device.id;
    const path = `/api/apps/${APP}/devices/${deviceId}`;
    expect(await send('DELETE', path, { 'idempotency-key': 'k1' }, undefined)).toBe(401);
    expect(await send('DELETE', `/api/apps/nosuchapp/devices/${deviceId}`, { 'idempotency-key': 'k1', 'x-service-key': SECRET }, undefined)).toBe(401);
    const deleted = await fetch(`${server!.url}${path}`, { method: 'DELETE', headers: { 'idempotency-key': 'k1', 'x-service-key': SECRET } });
    expect([deleted.status, deleted.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(await send('DELETE', path, { 'idempotency-key': 'k2', 'x-service-key': SECRET }, undefined)).toBe(404);

    expect(await server!.stop()).toBe(0);
    server = undefined;
    const db = openSqliteStore(dbPath, { logger: silentLogger });
    try {
      // Only the two authenticated DELETEs took a key.
      expect(await idempotencyRepository(db.sql).all()).toEqual([
        { appId: APP, key: 'k1', status: 200 },
        { appId: APP, key: 'k2', status: 404 },
      ]);
    } finally {
      await db.close();
    }
  }, 60_000);
});

/** Secured: every alternative requires credentials (an empty requirement `{}` means none are needed). */
function isSecured(security: Record<string, unknown>[]): boolean {
  return security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
}
