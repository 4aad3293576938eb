import { afterEach, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(import.meta.dir, 'main.ts');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const islet = async (args: string[]) => {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, '--config', join(dir, 'islet.toml')], {
    cwd: dir,
    env: { ...process.env, ISLET_CONFIG: '' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
};

// Before the fix, serve listened, then died of the unhandled rejection with a stack trace.
test('serve whose start-up recovery fails exits 1 with one line saying so, before it listens', async () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-recovery-'));
  writeFileSync(join(dir, 'islet.toml'), `[server]\nport = 0\nhost = "127.0.0.1"\n[admin]\ntoken = "t"\n[database]\npath = "${join(dir, 'i.db')}"\n`);
  expect((await islet(['demo'])).code).toBe(0);
  // A delivery a stopped process was sending, whose putting back the database refuses.
  const db = new Database(join(dir, 'i.db'));
  db.run(`UPDATE deliveries SET status = 'sending' WHERE id = (SELECT max(id) FROM deliveries)`);
  db.run(`CREATE TRIGGER refuse_recovery BEFORE UPDATE OF status ON deliveries WHEN OLD.status = 'sending' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
  db.close();

  const res = await islet(['serve']);
  expect(res.code).toBe(1);
  expect(res.out).not.toContain('"listening"');
  expect(res.err).toBe('islet: start-up recovery failed: disk I/O error\n');
}, 30_000);
