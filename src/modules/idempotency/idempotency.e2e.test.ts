import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

const SECRET = 'sk_idempotency_e2e';
let dir: string;
let server: SpawnedServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-idem-'));
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
      `[[apps]]\nid = "idem"\napp_secret = "${SECRET}"\n`,
  );
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown, key?: string) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'x-service-key': SECRET, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });

describe('Idempotency-Key through a real server process', () => {
  test('a replayed start creates one activity and answers the same body with Idempotent-Replayed: true; a changed body is 422', async () => {
    expect((await post('/api/apps/idem/devices', { endUserId: 'u1', platform: 'android', token: 'tok-u1' })).status).toBe(200);
    const start = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' }, targetUsers: ['u1'] };
    const first = await post('/api/apps/idem/live-activities', start, 'order-42');
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    const again = await post('/api/apps/idem/live-activities', start, 'order-42');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(await again.text()).toBe(firstBody);

    const changed = await post('/api/apps/idem/live-activities', { ...start, contentState: { value: '2' } }, 'order-42');
    expect(changed.status).toBe(422);
    expect(((await changed.json()) as { detail: string }).detail).toContain('different request');

    const list = (await (await fetch(`${server.url}/api/apps/idem/live-activities`, { headers: { 'x-service-key': SECRET } })).json()) as { total: number };
    expect(list.total).toBe(1);
  });
});
