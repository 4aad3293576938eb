import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsKey } from '../../test-support/delivery-fixtures';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../../test-support/postgres';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

/*
 * Instances started together (compose starts them so) on a fresh PostgreSQL all seed the same
 * `[[apps]]`: its app, secrets, credentials and Live Activity templates. Seeding runs under one
 * advisory lock, so the later ones find what the first made instead of creating it again (without
 * it, one of three exited with `duplicate key value violates unique constraint "apps_pkey"`).
 */
const ADMIN = 'seed-admin';
const INSTANCES = 3;
const ROUNDS = 5;
const MAIN = join(import.meta.dir, '..', '..', 'main.ts');

describe('three instances started together on one fresh PostgreSQL', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    await sharedPostgres();
    dir = mkdtempSync(join(tmpdir(), 'islet-seed-race-'));
    const key = apnsKey();
    writeFileSync(join(dir, 'apns.p8'), key.key);
    config =
      `[security]\nmaster_key = "${Buffer.alloc(32, 7).toString('base64')}"\n` +
      `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "${ADMIN}"\n` +
      `[[apps]]\nid = "rides"\nname = "Rides"\nplan = "pro"\n` +
      `[apps.apns]\nbundle_id = "com.example.rides"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "${join(dir, 'apns.p8')}"\n` +
      `[[apps.live_activity_templates]]\nslug = "ride"\nattributes_type = "RideAttributes"\n` +
      `[apps.live_activity_templates.content_state]\neta = { type = "integer", required = true }\n` +
      `[[apps]]\nid = "maps"\napp_secret = "sk_maps_seed"\n`;
  }, POSTGRES_STARTUP_TIMEOUT_MS);

  const migrate = async (url: string) => {
    writeFileSync(join(dir, 'islet.toml'), config);
    const proc = Bun.spawn([process.execPath, MAIN, 'migrate', '--config', join(dir, 'islet.toml')], { cwd: dir, env: { ...process.env, ISLET_DATABASE_URL: url }, stdout: 'ignore', stderr: 'pipe' });
    expect(await proc.exited).toBe(0);
  };

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test(`all ${INSTANCES} serve, ${ROUNDS} times, and agree on the app they seeded`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { url } = await testDatabase();
      // Odd rounds: migrated beforehand (`islet migrate`, then the instances), so no migration lock spaces their seeding out.
      if (round % 2 === 1) await migrate(url);
      const started = await Promise.allSettled(
        Array.from({ length: INSTANCES }, (_, i) => {
          const own = join(dir, `r${round}-i${i}`);
          mkdirSync(own);
          return spawnServer(own, config, undefined, { database: 'sqlite', env: { ISLET_DATABASE_URL: url } });
        }),
      );
      const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      try {
        const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
        expect(failures).toEqual([]);
        const answers = await Promise.all(
          servers.map(async (s) => {
            const get = (path: string) => fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.json() as Promise<Record<string, unknown>>);
            const secrets = await get('/api/admin/apps/rides/secrets');
            const templates = (await get('/api/admin/apps/rides/live-activity-templates')) as { templates?: { slug: string }[] };
            return { appSecret: secrets.appSecret, templates: templates.templates?.map((t) => t.slug) };
          }),
        );
        // One generated secret, seen alike by every instance: none made its own.
        expect(new Set(answers.map((a) => a.appSecret)).size).toBe(1);
        expect(answers.map((a) => a.templates)).toEqual(Array(INSTANCES).fill(['ride']));
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    }
  }, 180_000);
});
