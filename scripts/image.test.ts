import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { eventually } from '../src/test-support/eventually';

// Builds the FROM-scratch image with buildah and runs it with podman (flags this sandbox needs:
// runc, and explicit ulimits). .ci/run installs buildah, podman and runc.
const root = join(import.meta.dir, '..');
const tag = `islet-test:${process.pid}`;
const name = `islet-test-${process.pid}`;
const podman = ['podman', '--runtime', 'runc'];

const sh = (cmd: string[], cwd = root) => {
  const res = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' });
  return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
};

beforeAll(() => {
  for (const step of [
    [process.execPath, 'scripts/build.ts'],
    ['bash', 'scripts/image-rootfs.sh'],
    ['buildah', 'build', '--format', 'docker', '-t', tag, '-f', 'Containerfile', '.'],
  ]) {
    const res = sh(step);
    if (res.code !== 0) throw new Error(`${step.join(' ')} failed: ${res.err}`);
  }
}, 300_000);

afterAll(() => {
  sh([...podman, 'rm', '-f', name]);
  sh(['buildah', 'rmi', '-f', tag]);
});

describe('container image', () => {
  test('is configured to run as non-root with a /data volume and a shell-free health check', () => {
    const inspect = JSON.parse(sh([...podman, 'image', 'inspect', tag]).out)[0];
    expect(inspect.Config.User).toBe('65532:65532');
    expect(Object.keys(inspect.Config.Volumes)).toEqual(['/data']);
    expect(inspect.Config.Entrypoint).toEqual(['/usr/local/bin/islet']);
    expect(inspect.Healthcheck?.Test ?? inspect.Config.Healthcheck?.Test).toEqual(['CMD', '/usr/local/bin/islet', 'healthcheck']);
  });

  test('serves /readyz from the container, passes its health check, and exits promptly on SIGTERM', async () => {
    const run = sh([
      ...podman, 'run', '-d', '--name', name, '--no-healthcheck',
      '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1000:1000',
      '-p', '127.0.0.1::8080', '-e', 'ISLET_ADMIN_TOKEN=image-test', '-e', 'ISLET_SERVER_PUBLIC_URL=https://push.example.test', tag,
    ]);
    expect(run.err).not.toContain('Error');
    expect(run.code).toBe(0);
    const port = sh([...podman, 'port', name, '8080']).out.trim().split(':').pop();
    await eventually(async () => expect(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.json())).toEqual({ status: 'ready' }), { intervalMs: 100 });
    const health = sh([...podman, 'exec', name, '/usr/local/bin/islet', 'healthcheck']);
    expect(health.out.trim()).toBe('ready');
    expect(health.code).toBe(0);

    // Operations with no shell in the image: backup while serving, restore refused while serving.
    const exec = (...args: string[]) => sh([...podman, 'exec', name, '/usr/local/bin/islet', ...args]);
    const backup = exec('backup', '/data/backup-1.db');
    expect(backup.err).toBe('');
    expect(backup.out).toContain('backup written to /data/backup-1.db');
    expect(backup.out).toContain('it needs the key file /data/islet.key');
    const refused = exec('restore', '/data/backup-1.db');
    expect([refused.code, refused.err]).toEqual([1, 'islet: configuration error\n  an Islet server is running on /data/islet.db: stop it first, then restore\n']);
    expect(exec('admin-token', 'reset').err).toContain('the admin token is set by [admin] token (or ISLET_ADMIN_TOKEN)');

    // Exit code 0, not 137: the server (PID 1) handled SIGTERM itself before podman's SIGKILL.
    expect(sh([...podman, 'stop', '-t', '20', name]).code).toBe(0);
    expect(sh([...podman, 'inspect', name, '--format', '{{.State.ExitCode}}']).out.trim()).toBe('0');
    const logs = sh([...podman, 'logs', name]);
    expect(logs.out + logs.err).toContain('"msg":"stopped"');
    expect(logs.out).toContain('"publicUrl":"https://push.example.test"');

    // With the server stopped, restore runs in a one-off container on the same volume.
    const restored = sh([
      ...podman, 'run', '--rm', '--no-healthcheck', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1000:1000',
      '--volumes-from', name, tag, 'restore', '/data/backup-1.db',
    ]);
    expect(restored.err).toBe('');
    expect(restored.out).toContain('restored /data/islet.db from /data/backup-1.db');
  }, 90_000);
});
