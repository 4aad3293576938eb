import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../lib/clock';
import { createHarness, type Harness } from '../../test-support/harness';
import { serverClient } from '../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';
import { startWebhookReceiver, type WebhookReceiver } from '../../test-support/webhook-receiver';
import { POSTS_PER_ENDPOINT, webhookDispatcher } from './webhooks.dispatcher';
import { forEachDatabase } from '../../test-support/databases';
import type { AppContext } from '../../context';
import { until } from '../../test-support/eventually';

forEachDatabase('webhook-dispatcher', (database) => {
  /**
   * One receiver that never answers beside a healthy one, of another app: the healthy one gets all
   * its events while the hanging one's first request is still open, and the hanging one holds no
   * more than its own few posts.
   */

  const USERS = 30;
  const start = { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1' } };
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;

  beforeEach(async () => {
    hanging = await startWebhookReceiver();
    healthy = await startWebhookReceiver();
    hanging.hold();
  });
  afterEach(async () => {
    hanging.release();
    await hanging.close();
    await healthy.close();
  });

  type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

  /** App `slow` (the hanging receiver) starts USERS activities first, then app `fast` (the healthy one): the slow backlog is due first. */
  async function queueEvents(admin: Call, call: Call, secrets: Record<string, string>) {
    for (const [appId, receiver] of [['slow', hanging], ['fast', healthy]] as const) {
      const created = await admin('POST', `/api/admin/apps/${appId}/webhooks`, { url: receiver.url, events: ['live_activity.started'] });
      expect(created.status).toBe(201);
      receiver.secret = created.body.secret;
      const key = { 'x-service-key': secrets[appId]! };
      for (let i = 0; i < USERS; i++) {
        expect((await call('POST', `/api/apps/${appId}/devices`, { endUserId: `u${i}`, platform: 'android', token: `tok-${appId}-${i}` }, key)).status).toBe(200);
      }
      expect((await call('POST', `/api/apps/${appId}/live-activities`, start, key)).body.activityCount).toBe(USERS);
    }
  }

  /** The healthy receiver has every event while the hanging one holds its first requests open, no more than its share. */
  async function expectHealthyUnaffected() {
    await until('the healthy receiver has every event', () => healthy.events.length >= USERS);
    expect({ healthy: healthy.events.length, hangingOpen: hanging.open, hangingAnswered: hanging.events.length }).toEqual({
      healthy: USERS,
      hangingOpen: POSTS_PER_ENDPOINT,
      hangingAnswered: 0,
    });
    expect(healthy.rejected).toEqual([]);
    // Once it answers, the hanging receiver's backlog goes out too.
    hanging.release();
    // Its held requests time out first, then go again: under a loaded PostgreSQL that took over 10 s once.
    await until('the hanging receiver, answering again, has every event', () => hanging.events.length >= USERS, { timeoutMs: 20_000 });
    expect(new Set(hanging.events.map((e) => e.data.activityId)).size).toBe(USERS);
  }

  describe('a hanging webhook receiver beside a healthy one', () => {
    let h: Harness<AppContext> | undefined;
    afterEach(() => {
      h?.close();
      h = undefined;
    });

    test('the dispatcher posts the healthy endpoint’s events while the hanging one holds its own few slots (app.handle)', async () => {
      // The receivers check the signature's timestamp against the real time.
      const harness = (h = await createHarness({ database, clock: new FakeClock(Date.now()), toml: '[plans.pro]\nlive_activities = true\n' }));
      const secrets: Record<string, string> = {};
      for (const id of ['slow', 'fast']) secrets[id] = (await harness.createApp({ id, plan: 'pro' })).appSecret;
      const admin: Call = (method, path, body) => harness.admin(method, path, body);
      const call: Call = (method, path, body, headers) => harness.request(method, path, { body, headers });
      await queueEvents(admin, call, secrets);

      const dispatch = webhookDispatcher(harness.ctx);
      const run = dispatch.drain();
      await expectHealthyUnaffected();
      await run;
    }, 30_000);

    test('a served process does the same', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'islet-webhook-hang-'));
      let server: SpawnedServer | undefined;
      try {
        server = await spawnServer(
          dir,
          `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
            `[plans.pro]\nlive_activities = true\n[[apps]]\nid = "slow"\nplan = "pro"\napp_secret = "sk_slow"\n[[apps]]\nid = "fast"\nplan = "pro"\napp_secret = "sk_fast"\n`,
        );
        const { call, admin } = serverClient(() => server!.url, '', 't');
        await queueEvents(admin, (method, path, body, headers) => call(method, path, body, headers), { slow: 'sk_slow', fast: 'sk_fast' });
        await expectHealthyUnaffected();
        expect(await server.stop()).toBe(0);
        server = undefined;
      } finally {
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 30_000);
  });
});
