import { afterEach, describe, expect, test } from 'bun:test';
import { until } from '../../../test-support/eventually';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../../test-support/spawn-server';

/** Within the tests' own 30 s. */
const WAIT = { timeoutMs: 25_000, intervalMs: 50 };

let dir: string;
let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const ADMIN = { authorization: 'Bearer thread-admin', 'content-type': 'application/json' };

/** A server with one app of `users` Android end users; starts a Live Activity for all of them and waits until every delivery is delivered. */
async function serveAndStart(outboxThread: boolean, users: number) {
  dir = mkdtempSync(join(tmpdir(), 'islet-outbox-thread-'));
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "thread-admin"\n[database]\npath = "islet.db"\noutbox_thread = ${outboxThread}\n`,
  );
  const url = server.url;
  const created = await fetch(`${url}/api/admin/apps`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ id: 'threaded' }) });
  const { appSecret } = (await created.json()) as { appSecret: string };
  const app = { 'x-service-key': appSecret, 'content-type': 'application/json' };
  for (let i = 0; i < users; i++)
    await fetch(`${url}/api/apps/threaded/devices`, { method: 'POST', headers: app, body: JSON.stringify({ endUserId: `u${i}`, platform: 'android', token: `token-${i}` }) });
  const start = async () => {
    const res = await fetch(`${url}/api/apps/threaded/live-activities`, {
      method: 'POST',
      headers: app,
      body: JSON.stringify({ templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1 - 0' } }),
    });
    expect(((await res.json()) as { activityCount: number }).activityCount).toBe(users);
  };
  const delivered = async () => {
    const res = await fetch(`${url}/api/admin/apps/threaded/deliveries?status=delivered&limit=1`, { headers: ADMIN });
    return ((await res.json()) as { total: number }).total;
  };
  return { start, delivered, output: server.output };
}

describe('the outbox thread in a served process', () => {
  test('starts with the first deliveries; every delivery of later sends goes out once through it', async () => {
    const islet = await serveAndStart(true, 100);
    await islet.start();
    await until('100 are delivered', async () => (await islet.delivered()) === 100, WAIT);
    await until('the outbox thread started', () => islet.output().includes('outbox thread started'), WAIT);
    await islet.start();
    await until('200 are delivered', async () => (await islet.delivered()) === 200, WAIT);
    expect(islet.output()).not.toContain('outbox thread failed');
    // Nothing more than the 200: none went twice.
    await Bun.sleep(300);
    expect(await islet.delivered()).toBe(200);
  }, 30_000);

  test('with [database] outbox_thread = false everything stays on one thread', async () => {
    const islet = await serveAndStart(false, 50);
    await islet.start();
    await until('50 are delivered', async () => (await islet.delivered()) === 50, WAIT);
    expect(islet.output()).not.toContain('outbox thread');
  }, 30_000);
});
