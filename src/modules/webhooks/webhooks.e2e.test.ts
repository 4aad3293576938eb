import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';

const SECRET = 'sk_webhooks_e2e';
const ADMIN = 'webhooks-admin';
let dir: string;
let server: SpawnedServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-webhooks-'));
  receiver = await startWebhookReceiver();
  server = await spawnServer(
    dir,
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${ADMIN}"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
      `[[apps]]\nid = "hooks"\napp_secret = "${SECRET}"\n`,
  );
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (method: string, path: string, body?: unknown, auth: Record<string, string> = { 'x-service-key': SECRET }) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const admin = (method: string, path: string, body?: unknown) => call(method, path, body, { authorization: `Bearer ${ADMIN}` });

async function until(what: () => boolean, ms: number): Promise<void> {
  const start = Date.now();
  while (!what() && Date.now() - start < ms) await Bun.sleep(100);
}

describe('webhooks through a real server process (real time)', () => {
  test('a receiver that is down gets the events later, each verified with the standardwebhooks package', async () => {
    const created = await admin('POST', '/api/admin/apps/hooks/webhooks', { url: receiver.url, events: ['live_activity.started', 'live_activity.ended'] });
    expect(created.status).toBe(201);
    receiver.secret = created.body.secret;
    await receiver.down();

    expect((await call('POST', '/api/apps/hooks/devices', { endUserId: 'u1', platform: 'android', token: 'tok-u1' })).status).toBe(200);
    const started = await call('POST', '/api/apps/hooks/live-activities', { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' } });
    const activityId = started.body.activities[0].id;
    expect((await call('DELETE', `/api/apps/hooks/live-activities/${activityId}`)).status).toBe(200);

    // The first attempt (within a second) finds nobody listening.
    const attempts = () => admin('GET', `/api/admin/apps/hooks/webhooks/${created.body.id}/attempts`);
    let failed: any[] = [];
    const start = Date.now();
    while (failed.length < 2 && Date.now() - start < 5000) {
      failed = (await attempts()).body.attempts;
      await Bun.sleep(100);
    }
    expect(failed.map((a) => [a.attempt, a.ok])).toEqual([[1, false], [1, false]]);
    receiver.up();

    // The retry 5 s later delivers both.
    await until(() => receiver.events.length >= 2, 15_000);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.events.map((e) => [e.type, e.data.activityId]).sort()).toEqual([
      ['live_activity.ended', activityId],
      ['live_activity.started', activityId],
    ]);
    expect(receiver.events.find((e) => e.type === 'live_activity.ended')!.data.endReason).toBe('api');
    const after = (await attempts()).body;
    expect(after.attempts.filter((a: { ok: boolean }) => a.ok).map((a: { attempt: number }) => a.attempt)).toEqual([2, 2]);
  }, 30_000);
});
