import { afterEach, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The processes `pid` started (Linux: /proc), the server under `npm start`. */
const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .filter((s) => s.trim() !== '')
    .map(Number);
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');

test('SIGTERM to the npm of `npm start` stops the server it started: the script execs it, and npm forwards the signal', async () => {
  dir = mkdtempSync(join(tmpdir(), 'islet-npm-start-'));
  const npm = Bun.spawn(['npm', 'start'], {
    cwd: ROOT,
    env: { ...process.env, ISLET_CONFIG: '', ISLET_SERVER_PORT: '0', ISLET_SERVER_HOST: '127.0.0.1', ISLET_DATABASE_PATH: join(dir, 'i.db'), ISLET_ADMIN_TOKEN: 't' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const decoder = new TextDecoder();
  let out = '';
  const reader = npm.stdout.getReader();
  while (!out.includes('"listening"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`npm start exited before listening: ${out}${await new Response(npm.stderr).text()}`);
    out += decoder.decode(value);
  }
  const url = String(JSON.parse(out.split('\n').find((l) => l.includes('"listening"'))!).url);
  // With `sh -c "bun …"` npm's child is the shell, which dies of the forwarded signal and leaves bun running.
  const [child] = childrenOf(npm.pid);
  const started = [child!, ...childrenOf(child!)];
  try {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    npm.kill('SIGTERM');
    await npm.exited;
    // npm waits for its child: once npm is gone, so is the server, and its port is free.
    expect(alive(child!)).toBe(false);
    expect(await fetch(`${url}/healthz`).then((r) => r.status, () => 'refused')).toBe('refused');
  } finally {
    // Without exec the server is the shell's child, orphaned: it must not outlive the test.
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
}, 60_000);
