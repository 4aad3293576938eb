import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { POSTGRES_STARTUP_TIMEOUT_MS, sharedPostgres, testDatabase } from './postgres';
import { until } from './eventually';

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

/** Runs a process that starts a server, prints its folder and pid, then ends as `ending` says. */
async function serverOfAProcessThat(ending: 'throws' | 'is killed'): Promise<{ baseDir: string; pid: number; code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-pg-owner-'));
  try {
    writeFileSync(
      join(dir, 'owner.ts'),
      `import { startPostgres } from ${JSON.stringify(join(import.meta.dir, 'postgres.ts'))};
const pg = await startPostgres();
const pid = Number((await Bun.file(pg.baseDir + '/data/postmaster.pid').text()).split('\\n')[0]);
console.log(JSON.stringify({ baseDir: pg.baseDir, pid }));
${ending === 'throws' ? "throw new Error('a failing test');" : 'await Bun.sleep(60_000);'}`,
    );
    const proc = Bun.spawn([process.execPath, join(dir, 'owner.ts')], { stdout: 'pipe', stderr: 'pipe' });
    const reader = proc.stdout.getReader();
    let out = '';
    while (!out.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`owner exited early: ${await new Response(proc.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
    const started = JSON.parse(out) as { baseDir: string; pid: number };
    expect(alive(started.pid)).toBe(true);
    if (ending === 'is killed') proc.kill('SIGKILL');
    const code = await proc.exited;
    await until('the watchdog stops the server and removes its folder', () => !alive(started.pid) && !existsSync(started.baseDir), { timeoutMs: POSTGRES_STARTUP_TIMEOUT_MS, intervalMs: 50 });
    return { ...started, code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

describe('throw-away PostgreSQL for tests', () => {
  test('each test database is an empty database of its own on a real PostgreSQL 17 on loopback', async () => {
    const a = await testDatabase();
    const b = await testDatabase();
    expect(a.server).toBe(b.server);
    expect(a.name).not.toBe(b.name);
    const sqlA = new SQL(a.url);
    const sqlB = new SQL(b.url);
    try {
      const [row] = await sqlA`SELECT current_setting('server_version_num')::int AS version, inet_server_addr()::text AS address`;
      expect(row.version).toBeGreaterThanOrEqual(170000);
      expect(row.address).toBe('127.0.0.1/32');
      await sqlA`CREATE TABLE only_in_a (id int)`;
      const [seen] = await sqlB`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'`;
      expect(seen.n).toBe(0);
    } finally {
      await Promise.all([sqlA.close(), sqlB.close()]);
    }
  });

  test('the server stops and its folder is removed when the process that started it fails', async () => {
    const { baseDir, pid, code } = await serverOfAProcessThat('throws');
    expect(code).toBe(1);
    expect({ running: alive(pid), folder: existsSync(baseDir) }).toEqual({ running: false, folder: false });
  }, POSTGRES_STARTUP_TIMEOUT_MS);

  test('the server stops and its folder is removed when the process that started it is killed', async () => {
    const { baseDir, pid, code } = await serverOfAProcessThat('is killed');
    expect(code).not.toBe(0);
    expect({ running: alive(pid), folder: existsSync(baseDir) }).toEqual({ running: false, folder: false });
  }, POSTGRES_STARTUP_TIMEOUT_MS);
});
