import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import type { AppContext } from '../context';
import { silentLogger } from '../lib/logger';
import type { DeliveryResult } from '../modules/delivery/worker/delivery.types';
import { apnsToken } from '../test-support/apns-standin';
import { createHarness, type Harness } from '../test-support/harness';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres } from '../test-support/postgres';
import { openPostgresStore, type PostgresStore } from '../db/postgres/store';
import { broadcastsRepository } from '../modules/broadcasts/broadcasts.repository';
import { idempotencyRepository } from '../modules/idempotency/idempotency.repository';
import { webhooksRepository } from '../modules/webhooks/webhooks.repository';
import { deliveriesRepository } from '../modules/delivery/worker/delivery.repository';

/*
 * Claims under leases, as two instances (stores with owners A and B) on one database see them: what
 * one claimed is invisible to the other, recovery leaves a live instance's claims alone and puts
 * back those of an instance whose lease ran out, and a late outcome of a taken-over claim writes
 * nothing. The instances' leases are rows of cluster_instances, as the registry writes them.
 */
describe('claims under leases (PostgreSQL)', () => {
  beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);
  let h: Harness<AppContext> | undefined;
  let stores: PostgresStore[] = [];
  afterEach(async () => {
    for (const s of stores) await s.close();
    stores = [];
    await h?.close();
    h = undefined;
  });

  /** A harness with app a1, and stores of instances A and B on its database, both with a live lease. */
  async function twoInstances() {
    h = await createHarness({ database: 'postgres' });
    await h.createApp({ id: 'a1' });
    const settings = { url: h.ctx.config.database.url!, poolSize: 2 };
    const [a, b] = [openPostgresStore(settings, silentLogger, 'A'), openPostgresStore(settings, silentLogger, 'B')];
    stores.push(a, b);
    const sql = (text: string, values: unknown[] = []) => a.client.unsafe(text, values as never[]);
    for (const id of ['A', 'B'])
      await sql(
        `INSERT INTO cluster_instances (id, host, pid, version, started_at, last_seen, lease_until) VALUES ($1, 'test', 1, 'test', 0, 0, (extract(epoch from clock_timestamp()) * 1000)::bigint + 600000)`,
        [id],
      );
    return { a, b, sql, lapse: (id: string) => sql('UPDATE cluster_instances SET lease_until = 0 WHERE id = $1', [id]) };
  }

  async function queueDeliveries(n: number) {
    await h!.admin('POST', '/api/admin/apps/a1/releases', { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi', body: 'there' }] });
    for (let i = 0; i < n; i++) await h!.service('a1', 'POST', '/api/apps/a1/devices', { endUserId: `u${i}`, platform: 'ios', token: apnsToken(`t${i}`) });
    expect((await h!.service('a1', 'POST', '/api/apps/a1/notifications/send', { templateSlug: 'hi' })).status).toBe(200);
  }

  const delivered = (id: number, now: number): DeliveryResult => ({
    id,
    status: 'delivered',
    holdKind: null,
    attempts: 1,
    nextAttemptAt: now,
    provider: 'apns',
    providerId: null,
    reason: null,
    sentPayload: null,
  });

  test(
    'deliveries: A\'s claims are invisible to B, survive B\'s recovery while A lives, are put back once its lease ran out, and A\'s late outcome writes nothing',
    async () => {
      const { a, b, sql, lapse } = await twoInstances();
      await queueDeliveries(4);
      const now = Date.now();
      const byA = (await deliveriesRepository(a.sql).claim(now, 2)).map((d) => d.id);
      const byB = (await deliveriesRepository(b.sql).claim(now, 10)).map((d) => d.id);
      expect([byA.length, byB.length, byA.filter((id) => byB.includes(id))]).toEqual([2, 2, []]);
      const owners = async () => (await sql(`SELECT claimed_by AS owner, status FROM deliveries ORDER BY id`)) as { owner: string | null; status: string }[];
      expect((await owners()).map((r) => r.owner).sort()).toEqual(['A', 'A', 'B', 'B']);

      expect(await deliveriesRepository(b.sql).recoverSending(now)).toBe(0);
      await lapse('A');
      expect(await deliveriesRepository(b.sql).recoverSending(now)).toBe(2);
      expect((await owners()).filter((r) => r.status === 'sending').map((r) => r.owner)).toEqual(['B', 'B']);

      const takenOver = (await deliveriesRepository(b.sql).claim(now, 10)).map((d) => d.id).sort();
      expect(takenOver).toEqual([...byA].sort());
      await deliveriesRepository(a.sql).record([delivered(byA[0]!, now)], now);
      expect(await deliveriesRepository(a.sql).release(byA, now)).toBe(0);
      expect((await owners()).map((r) => [r.status, r.owner])).toEqual(Array(4).fill(['sending', 'B']));

      await deliveriesRepository(b.sql).record([...byA, ...byB].map((id) => delivered(id, now)), now);
      expect((await owners()).map((r) => [r.status, r.owner])).toEqual(Array(4).fill(['delivered', null]));
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'webhook deliveries: B leaves A\'s claim while A lives, takes it over once A\'s lease ran out, and A\'s late attempt records nothing',
    async () => {
      const { a, b, sql, lapse } = await twoInstances();
      const hook = await h!.admin('POST', '/api/admin/apps/a1/webhooks', { url: 'http://127.0.0.1:9/hook' });
      expect((await h!.admin('POST', `/api/admin/apps/a1/webhooks/${hook.body.id}/test`)).status).toBeLessThan(300);
      const now = Date.now();
      const [claimed] = await webhooksRepository(a.sql).claim(now, 10);
      expect(claimed).toBeDefined();
      expect(await webhooksRepository(b.sql).claim(now, 10)).toEqual([]);
      expect(await webhooksRepository(b.sql).recoverSending(now)).toBe(0);
      await lapse('A');
      expect(await webhooksRepository(b.sql).recoverSending(now)).toBe(1);
      const [again] = await webhooksRepository(b.sql).claim(now, 10);
      expect(again?.id).toBe(claimed!.id);

      const result = { ok: true, status: 204, error: null, durationMs: 1, at: now };
      await webhooksRepository(a.sql).record(claimed!, result, { status: 'delivered', nextAttemptAt: now });
      const state = async () => ({
        delivery: (await sql('SELECT status, claimed_by AS owner FROM webhook_deliveries')) as unknown[],
        attempts: ((await sql('SELECT count(*)::int AS n FROM webhook_attempts')) as { n: number }[])[0]!.n,
      });
      expect(await state()).toEqual({ delivery: [{ status: 'sending', owner: 'B' }], attempts: 0 });
      await webhooksRepository(b.sql).record(again!, result, { status: 'delivered', nextAttemptAt: now });
      expect(await state()).toEqual({ delivery: [{ status: 'delivered', owner: null }], attempts: 1 });
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'Idempotency-Keys: a running key of a live instance is kept by recovery and only its instance completes it; a dead instance\'s is freed',
    async () => {
      const { a, b, lapse } = await twoInstances();
      const now = Date.now();
      expect(await idempotencyRepository(a.sql).claim('a1', 'k1', 'f', now, now - 1000)).toBe(true);
      expect(await idempotencyRepository(b.sql).releaseAllRunning()).toBe(0);
      await idempotencyRepository(b.sql).complete('a1', 'k1', { status: 200, contentType: null, body: 'from B' });
      expect((await idempotencyRepository(a.sql).find('a1', 'k1'))?.state).toBe('running');
      await idempotencyRepository(a.sql).complete('a1', 'k1', { status: 200, contentType: null, body: 'from A' });
      expect(await idempotencyRepository(a.sql).find('a1', 'k1')).toMatchObject({ state: 'done', body: 'from A' });

      expect(await idempotencyRepository(a.sql).claim('a1', 'k2', 'f', now, now - 1000)).toBe(true);
      await lapse('A');
      expect(await idempotencyRepository(b.sql).releaseAllRunning()).toBe(1);
      expect(await idempotencyRepository(b.sql).find('a1', 'k2')).toBeUndefined();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'broadcast steps: a step claimed by A is skipped by B with every later step of its broadcast, its own saveOp ends the claim, and a dead instance\'s step is taken over',
    async () => {
      const { a, b, lapse } = await twoInstances();
      const now = Date.now();
      for (const id of ['b1', 'b2'])
        await broadcastsRepository(a.sql).insert({
          id, appId: 'a1', templateSlug: 'score', attributes: '{}', contentState: '{}', storagePolicy: 0, environment: 'simulator',
          channelId: null, channelState: 'creating', topic: 't', lastTimestamp: 0, startedAt: now,
        });
      for (const [broadcastId, kind] of [['b1', 'create_channel'], ['b1', 'update'], ['b2', 'create_channel']] as const)
        await broadcastsRepository(a.sql).queue({ broadcastId, appId: 'a1', kind, content: null, dueAt: now }, now);
      const steps = async (repo: typeof a) => (await broadcastsRepository(repo.sql).due(now, 1)).map((op) => `${op.broadcastId}:${op.kind}`);

      // Each takes one broadcast's first step; looking again, B finds only its own (a round of its
      // that failed left it), never A's, and not b1's update, which waits for b1's create.
      const [byA, byB] = [await steps(a), await steps(b)];
      expect([...byA, ...byB].sort()).toEqual(['b1:create_channel', 'b2:create_channel']);
      const all = async (repo: typeof a) => (await broadcastsRepository(repo.sql).due(now, 10)).map((op) => `${op.broadcastId}:${op.kind}`);
      expect(await all(b)).toEqual(byB);

      // A finishes its step: the next step of that broadcast is free for anybody.
      const aBroadcast = byA[0]!.split(':')[0]!;
      const [done] = await broadcastsRepository(a.sql).ops(aBroadcast);
      await broadcastsRepository(a.sql).saveOp({ ...done!, status: 'done' }, now);
      expect((await all(b)).sort()).toEqual(aBroadcast === 'b1' ? ['b1:update', ...byB].sort() : byB);

      // B dies with its claims: A takes them over once B's lease ran out.
      expect(await all(a)).toEqual([]);
      await lapse('B');
      expect((await all(a)).sort()).toEqual(aBroadcast === 'b1' ? ['b1:update', ...byB].sort() : byB);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
