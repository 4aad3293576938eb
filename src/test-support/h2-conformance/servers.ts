/**
 * The independent HTTP/2 servers the conformance suite of src/lib/http2 runs against: Go's
 * golang.org/x/net/http2 (go-server/main.go, built once per test file into a temp dir, offline from
 * Debian's golang-go and golang-golang-x-net-dev) and nghttp2's nghttpd (Debian nghttp2-server).
 * A missing tool fails the test with what to install; nothing is skipped.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../lib/logger';
import { Http2Connection } from '../../modules/delivery/providers/apns/apns.session';
import { testCertificate } from '../tls';

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

const X_NET = '/usr/share/gocode/src/golang.org/x/net/http2';
const dir = mkdtempSync(join(tmpdir(), 'islet-h2-conformance-'));
const { cert, key } = testCertificate();
writeFileSync(join(dir, 'cert.pem'), cert);
writeFileSync(join(dir, 'key.pem'), key);

/** A connection as the APNs client opens them, to a conformance server, trusting the test certificate. */
export function connect(url: string, options: { maxStreams?: number; pingIntervalMs?: number } = {}): Http2Connection {
  return new Http2Connection(url, { ca: cert, pingIntervalMs: options.pingIntervalMs ?? 60_000, connectTimeoutMs: 10_000, maxStreams: options.maxStreams, logger: silentLogger });
}

let goBinary: string | undefined;

/** Builds go-server/main.go once per test file (call it in beforeAll: a cold build takes seconds). */
export function buildGoServer(): string {
  if (goBinary) return goBinary;
  if (!Bun.which('go') || !existsSync(X_NET)) throw new Error('Go or golang.org/x/net is missing: apt-get install golang-go golang-golang-x-net-dev (see .ci/run)');
  const out = join(dir, 'go-server');
  const build = Bun.spawnSync(['go', 'build', '-o', out, join(import.meta.dir, 'go-server', 'main.go')], {
    cwd: dir,
    env: { ...process.env, GOPATH: '/usr/share/gocode', GO111MODULE: 'off', GOFLAGS: '', GOPROXY: 'off', GOCACHE: join(tmpdir(), 'islet-go-cache') },
    stderr: 'pipe',
  });
  if (build.exitCode !== 0) throw new Error(`go build of the conformance server failed: ${build.stderr.toString()}`);
  goBinary = out;
  return goBinary;
}

/** Starts go-server/main.go with these flags. */
export async function goServer(flags: string[] = []): Promise<RunningServer> {
  const proc = Bun.spawn([buildGoServer(), '-cert', join(dir, 'cert.pem'), '-key', join(dir, 'key.pem'), ...flags], { stdout: 'pipe', stderr: 'inherit' });
  const reader = proc.stdout.getReader();
  let text = '';
  while (!/listening (\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the Go conformance server exited: ${text}`);
    text += new TextDecoder().decode(value);
  }
  const port = /listening (\d+)/.exec(text)![1];
  return {
    url: `https://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill();
      await proc.exited;
    },
  };
}

/** Starts nghttpd on a free loopback port with these options, serving `files` (name → bytes) from its document root. */
export async function nghttpd(options: string[], files: Record<string, Buffer> = {}): Promise<RunningServer> {
  if (!Bun.which('nghttpd')) throw new Error('nghttpd is missing: apt-get install nghttp2-server (see .ci/run)');
  const htdocs = mkdtempSync(join(dir, 'htdocs-'));
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(htdocs, name), bytes);
  const port = await freePort();
  const proc = Bun.spawn(['nghttpd', '-a', '127.0.0.1', '-d', htdocs, ...options, String(port), join(dir, 'key.pem'), join(dir, 'cert.pem')], { stdout: 'ignore', stderr: 'inherit' });
  for (let i = 0; !(await accepts(port)); i++) {
    if (proc.exitCode !== null || i > 200) throw new Error(`nghttpd did not start (exit ${proc.exitCode})`);
    await Bun.sleep(10);
  }
  return {
    url: `https://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill();
      await proc.exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
