import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from '../src/test-support/postgres';
import { spawnServer } from '../src/test-support/spawn-server';
import { eventually, until } from '../src/test-support/eventually';

const root = join(import.meta.dir, '..');
/** The PostgreSQL migrations of the sources, which the binary must carry. */
const PG_MIGRATIONS = (JSON.parse(readFileSync(join(root, 'drizzle-pg/meta/_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;
let dir: string;
let binary: string;

beforeAll(() => {
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--outfile', 'dist/islet'], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  // The binary alone in an empty folder: nothing of the repository beside it.
  dir = mkdtempSync(join(tmpdir(), 'islet-bin-'));
  binary = join(dir, 'islet');
  copyFileSync(join(root, 'dist', 'islet'), binary);
  Bun.spawnSync(['chmod', '+x', binary]);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('compiled binary', () => {
  test('prints its version and the commit it was built from', () => {
    const res = Bun.spawnSync([binary, 'version'], { cwd: dir });
    const commit = Bun.spawnSync(['git', 'rev-parse', '--short=12', 'HEAD'], { cwd: root }).stdout.toString().trim();
    expect(res.stdout.toString()).toContain(`islet 0.1.0 (${commit}`);
  });

  test('runs from an empty folder: migrates its database, serves readiness, the console, the docs and the API', async () => {
    const { proc, url, output } = await spawnServer(dir, '[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "bin-admin"\n[database]\npath = "state/islet.db"\n', [binary]);
    try {
      expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
      const docs = await fetch(`${url}/swagger`);
      expect(docs.status).toBe(200);
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-init.js', 'favicon-32x32.png']) expect((await fetch(`${url}/swagger/assets/${asset}`)).status).toBe(200);
      expect((await fetch(`${url}/swagger/favicon-32x32.png`)).headers.get('content-type')).toBe('image/png');
      const doc = (await (await fetch(`${url}/swagger/json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).toContain('/api/apps/{appId}/devices');

      // The console page and everything it references come from inside the binary.
      const page = await fetch(`${url}/console`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) expect({ asset, status: (await fetch(`${url}${asset}`)).status }).toEqual({ asset, status: 200 });

      // A Live Activity start goes all the way to the simulator.
      const admin = { authorization: 'Bearer bin-admin', 'content-type': 'application/json' };
      const created = await fetch(`${url}/api/admin/apps`, { method: 'POST', headers: admin, body: JSON.stringify({ id: 'binapp' }) });
      expect(created.status).toBe(201);
      const { appSecret } = (await created.json()) as { appSecret: string };
      const app = { 'x-service-key': appSecret, 'content-type': 'application/json' };
      await fetch(`${url}/api/apps/binapp/devices`, { method: 'POST', headers: app, body: JSON.stringify({ endUserId: 'u1', platform: 'android', token: 'tok' }) });
      const started = await fetch(`${url}/api/apps/binapp/live-activities`, {
        method: 'POST',
        headers: app,
        body: JSON.stringify({ templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '1 - 0' } }),
      });
      expect(((await started.json()) as { activityCount: number }).activityCount).toBe(1);
      await eventually(async () => {
        const list = (await (await fetch(`${url}/api/admin/apps/binapp/deliveries`, { headers: admin })).json()) as { deliveries: { status?: string; provider?: string }[] };
        expect(list.deliveries[0]).toMatchObject({ status: 'sent', provider: 'simulator' });
      }, { intervalMs: 100 });
      // That delivery started the outbox thread, a second entry point inside the binary.
      await until('the binary logs that the outbox thread started', () => output().includes('outbox thread started'), { timeoutMs: 5_000, intervalMs: 50 });
      expect(output()).not.toContain('outbox thread failed');
    } finally {
      proc.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    }
  }, 30_000);

  test('carries the PostgreSQL migrations: check-config counts them against a PostgreSQL', async () => {
    const { url } = await testDatabase();
    const res = Bun.spawnSync([binary, 'check-config'], { cwd: dir, env: { ...process.env, ISLET_CONFIG: '', ISLET_DATABASE_URL: url } });
    expect({ code: res.exitCode, err: res.stderr.toString() }).toEqual({ code: 0, err: expect.stringContaining(`connected; 0 of ${PG_MIGRATIONS} migrations applied`) });
  }, 30_000);
});
