import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import type { AppContext } from '../context';
import { silentLogger } from '../lib/logger';
import { createHarness, type Harness } from '../test-support/harness';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres } from '../test-support/postgres';
import { openPostgresStore, type PostgresStore } from '../db/postgres/store';
import { webhooksRepository } from '../modules/webhooks/webhooks.repository';
import { webhookEventsRepository } from '../modules/webhooks/webhook-events.repository';

/*
 * Two webhook runs at once (the old scheduler leader's, finishing, and the new one's): every due
 * delivery is claimed by one of them, never both, also when one's claim commits while the other's
 * statement runs.
 */
describe('webhook claims side by side (PostgreSQL)', () => {
  beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);
  let h: Harness<AppContext> | undefined;
  const stores: PostgresStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await h?.close();
  });

  test('two instances claiming the same due deliveries over and over claim each once', async () => {
    h = await createHarness({ database: 'postgres' });
    const { id: appId } = await h.createApp();
    const created = await h.admin('POST', `/api/admin/apps/${appId}/webhooks`, { url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    const due = 2_000;
    await h.ctx.db.write(async (tx) => {
      for (let i = 0; i < due; i++) await webhookEventsRepository(tx).writeEvent(appId, 'live_activity.started', { i }, [created.body.id], 0);
    });
    const settings = { url: h.ctx.config.database.url!, poolSize: 4 };
    stores.push(openPostgresStore(settings, silentLogger, 'A'), openPostgresStore(settings, silentLogger, 'B'));
    const claimed: number[] = [];
    const claimer = async (store: PostgresStore) => {
      for (;;) {
        const got = await webhooksRepository(store.sql).claim(1, 5, due);
        if (got.length === 0) return;
        claimed.push(...got.map((d) => d.id));
      }
    };
    await Promise.all(stores.flatMap((s) => [claimer(s), claimer(s), claimer(s)]));
    expect(claimed.length - new Set(claimed).size).toBe(0);
    expect(new Set(claimed).size).toBe(due);
  }, 120_000);
});
