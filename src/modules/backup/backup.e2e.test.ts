import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../test-support/spawn-server';

const MAIN = join(import.meta.dir, '..', '..', 'main.ts');
let dir: string;
const servers: SpawnedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the command line (`bun src/main.ts …`) without blocking the event loop (the servers keep running). */
async function cli(args: string[], config: string): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, '--config', config], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ISLET_CONFIG: '' } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

const configFor = (data: string) => `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "adm"\n[database]\npath = "${join(data, 'islet.db')}"\n`;

describe('backup and restore (real server processes)', () => {
  test('backup while a fan-out writes; restore refuses a running instance, checks the key, and a second instance serves the same data', async () => {
    dir = mkdtempSync(join(tmpdir(), 'islet-backup-'));
    const dataA = join(dir, 'a', 'data');
    const dataB = join(dir, 'b', 'data');
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    const a = await spawnServer(join(dir, 'a'), configFor(dataA));
    servers.push(a);
    const configA = join(dir, 'a', 'islet.toml');
    const call = (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const admin = (base: string, method: string, path: string, body?: unknown) => call(base, method, path, { authorization: 'Bearer adm' }, body);

    // An app made through the API: its secrets exist only sealed in the database, under islet.key.
    const created = (await (await admin(a.url, 'POST', '/api/admin/apps', { id: 'shop' })).json()) as { appSecret: string };
    const service = (base: string, method: string, path: string, body?: unknown) => call(base, method, path, { 'x-service-key': created.appSecret }, body);
    expect((await admin(a.url, 'POST', '/api/admin/apps/shop/releases', { version: 1, status: 'Live', templates: [{ slug: 'hi', title: 'Hi', body: 'Hello {{n}}' }] })).status).toBe(201);
    for (let i = 0; i < 300; i++) await service(a.url, 'POST', '/api/apps/shop/devices', { endUserId: `u${i}`, platform: 'android', token: `tok-${i}` });
    const started = await service(a.url, 'POST', '/api/apps/shop/live-activities', { templateSlug: 'metric-live', targetUsers: ['u1', 'u2'], attributes: { label: 'Score' }, contentState: { value: '1' } });
    expect(started.status).toBe(200);

    // Fan-outs keep writing (300 deliveries each, and the worker records their outcomes) while the backup runs.
    // The folder does not exist yet: backup makes it.
    const backupFile = join(dir, 'backups', 'islet-1.db');
    let writing = true;
    let sends = 0;
    const fanOut = (async () => {
      while (writing) {
        expect((await service(a.url, 'POST', '/api/apps/shop/notifications/send', { templateSlug: 'hi', variables: { n: String(sends) } })).status).toBe(200);
        sends++;
      }
    })();
    await Bun.sleep(200);
    const sendsBeforeBackup = sends;
    const backup = await cli(['backup', backupFile], configA);
    const sendsDuringBackup = sends;
    await Bun.sleep(100);
    writing = false;
    await fanOut;
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.out).toContain(`backup written to ${backupFile}`);
    expect(backup.out).toContain('integrity ok');
    expect(backup.out).toContain(`it needs the key file ${join(dataA, 'islet.key')}`);
    // The fan-out was writing while the backup ran (a backup takes a process start, far longer than one send).
    expect(sendsDuringBackup).toBeGreaterThan(sendsBeforeBackup);
    expect(readdirSync(join(dir, 'backups'))).toEqual(['islet-1.db']);
    const again = await cli(['backup', backupFile], configA);
    expect([again.code, again.err.includes('already exists')]).toEqual([1, true]);
    const copy = new Database(backupFile, { readonly: true });
    const inBackup = {
      integrity: copy.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check,
      deliveries: copy.query<{ n: number }, []>('SELECT count(*) AS n FROM deliveries').get()!.n,
      messages: copy.query<{ n: number }, []>('SELECT count(*) AS n FROM messages').get()!.n,
    };
    copy.close();
    expect(inBackup.integrity).toBe('ok');
    // Consistent: every message has all its deliveries in the copy (300 per send; 2 starts of one delivery each).
    expect(inBackup.deliveries).toBe((inBackup.messages - 2) * 300 + 2);
    expect(inBackup.messages).toBeGreaterThan(2);

    // Restoring over the running instance's database is refused, and changes nothing.
    const refused = await cli(['restore', backupFile], configA);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('an Islet server is running on');
    // So is a second server on the same database.
    const second = await cli(['serve'], configA);
    expect([second.code, second.err.includes('another Islet server is running')]).toEqual([1, true]);

    // Into a new data folder: without the key it refuses, with a wrong key it refuses, with the right one it restores.
    const configB = join(dir, 'b', 'islet.toml');
    writeFileSync(configB, configFor(dataB));
    expect((await cli(['restore', backupFile], configB)).err).toContain(`no master key: put the backup's islet.key at ${join(dataB, 'islet.key')}`);
    mkdirSync(dataB, { recursive: true });
    writeFileSync(join(dataB, 'islet.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`);
    const wrongKey = await cli(['restore', backupFile], configB);
    expect([wrongKey.code, wrongKey.err.includes("does not open this backup's secrets")]).toEqual([1, true]);
    expect(existsSync(join(dataB, 'islet.db'))).toBe(false);
    copyFileSync(join(dataA, 'islet.key'), join(dataB, 'islet.key'));
    const restored = await cli(['restore', backupFile], configB);
    expect(restored.err).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.out).toContain('integrity ok, master key opens its secrets');

    // A second instance on the restored folder serves the same app (its sealed App Secret opens), activities and deliveries.
    const b = await spawnServer(join(dir, 'b'), configFor(dataB));
    servers.push(b);
    const list = async (base: string) => (await (await service(base, 'GET', '/api/apps/shop/live-activities')).json()) as { activities: { id: string }[] };
    expect((await list(b.url)).activities.map((x) => x.id).sort()).toEqual((await list(a.url)).activities.map((x) => x.id).sort());
    const deliveries = (await (await admin(b.url, 'GET', '/api/admin/apps/shop/deliveries?limit=1')).json()) as { total: number };
    expect(deliveries.total).toBe(inBackup.deliveries);
    const apps = (await (await admin(b.url, 'GET', '/api/admin/apps')).json()) as { apps: { id: string }[] };
    expect(apps.apps.map((x) => x.id)).toEqual(['shop']);
  }, 120_000);
});
