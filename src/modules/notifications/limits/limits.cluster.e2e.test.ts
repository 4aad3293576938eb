import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsToken } from '../../../test-support/apns-standin';
import { eventually } from '../../../test-support/eventually';
import { sharedPostgres, testDatabase } from '../../../test-support/postgres';
import { serverClient } from '../../../test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../../test-support/spawn-server';

/**
 * A frequency cap with two server processes on one PostgreSQL: sends to one person through both
 * instances at once are counted exactly (the per-user window is locked in each send's transaction),
 * so a cap of 2 lets exactly two of them through.
 */
describe('frequency caps on several instances (PostgreSQL)', () => {
  const APP = 'capped';
  const SECRET = 'sk_capped_cluster';
  const SENDS = 12;
  let dir: string;
  const servers: SpawnedServer[] = [];

  beforeAll(async () => {
    await sharedPostgres();
    dir = mkdtempSync(join(tmpdir(), 'islet-limits-cluster-'));
    const { url } = await testDatabase();
    const config =
      `[security]\nmaster_key = "${Buffer.alloc(32, 7).toString('base64')}"\n` +
      `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "t"\n[cluster]\nlease_seconds = 10\n` +
      `[[apps]]\nid = "${APP}"\napp_secret = "${SECRET}"\nfrequency_cap_count = 2\nfrequency_cap_per_hours = 24\n`;
    for (const n of [0, 1]) {
      const own = join(dir, `instance-${n}`);
      mkdirSync(own);
      servers.push(await spawnServer(own, config, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } }));
    }
    const { call, admin } = serverClient(() => servers[0]!.url, SECRET, 't');
    expect((await admin('POST', `/api/admin/apps/${APP}/releases`, { version: 1, status: 'Live', templates: [{ slug: 'promo', title: 'Sale', body: 'Half price' }] })).status).toBe(201);
    for (const label of ['phone', 'tablet']) expect((await call('POST', `/api/apps/${APP}/devices`, { endUserId: 'ada', platform: 'ios', token: apnsToken(label) })).status).toBe(200);
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) if (server.proc.exitCode === null) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test('twelve promotions to one person through both instances at once: exactly two reach her, on both her phones', async () => {
    // The cap came from the file ([[apps]] frequency_cap_count, frequency_cap_per_hours).
    expect((await serverClient(() => servers[1]!.url, SECRET, 't').admin('GET', `/api/admin/apps/${APP}`)).body.frequencyCap).toEqual({ count: 2, perHours: 24 });
    const answers = await Promise.all(
      Array.from({ length: SENDS }, (_, i) => serverClient(() => servers[i % 2]!.url, SECRET, 't').call('POST', `/api/apps/${APP}/notifications/send`, { templateSlug: 'promo' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(SENDS).fill(200));
    const { call } = serverClient(() => servers[0]!.url, SECRET, 't');
    const counts = await eventually(async () => {
      const all = await Promise.all(answers.map(async (a) => (await call('GET', `/api/apps/${APP}/notifications/${a.body.messageId}`)).body.deliveries));
      for (const d of all) expect(d.queued + d.sending + d.held).toBe(0);
      return all;
    }, { timeoutMs: 30_000 });
    const went = counts.filter((d) => d.sent === 2);
    const capped = counts.filter((d) => d.dropped === 2);
    expect(went).toHaveLength(2);
    expect(capped).toHaveLength(SENDS - 2);
  }, 90_000);
});
