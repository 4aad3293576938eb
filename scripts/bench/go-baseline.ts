/**
 * The Go baseline of the fan-out (issue 49): go-sender/main.go, a bare sender on Go's
 * golang.org/x/net/http2 (the transport gorush runs on), built offline from Debian's packages
 * (`golang-go`, `golang-golang-x-net-dev`: GOPATH=/usr/share/gocode, GO111MODULE=off, no module
 * proxy). `buildGoSender` installs them with apt-get when missing (as root), and otherwise returns
 * undefined after saying on stderr why the Go baseline is skipped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { APNS_MAX_CONNECTIONS, APNS_STREAMS_PER_CONNECTION } from '../../src/modules/delivery/providers/apns/apns.client';

const X_NET_HTTP2 = '/usr/share/gocode/src/golang.org/x/net/http2';
const PACKAGES = ['golang-go', 'golang-golang-x-net-dev'];
const ready = () => Boolean(Bun.which('go')) && existsSync(X_NET_HTTP2);

function skip(why: string): undefined {
  console.error(`Go baseline skipped: ${why} (fanout_vs_go is left out)`);
  return undefined;
}

/** apt-get install of Go and x/net, once more after `apt-get update` if the package lists are stale. */
function install(): boolean {
  if (!Bun.which('apt-get')) return false;
  if (process.getuid?.() !== 0) return false;
  console.error(`Go baseline: installing ${PACKAGES.join(' ')} with apt-get`);
  const apt = (args: string[]) =>
    Bun.spawnSync(['apt-get', ...args], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdout: 'ignore', stderr: 'inherit' }).exitCode === 0;
  return apt(['install', '-y', '--no-install-recommends', ...PACKAGES]) || (apt(['update']) && apt(['install', '-y', '--no-install-recommends', ...PACKAGES]));
}

/** Builds go-sender into `dir`; its path, or undefined (said why) when Go or x/net is not there. */
export function buildGoSender(dir: string): string | undefined {
  if (!ready() && !install()) return skip(`Go or golang.org/x/net is not installed and apt-get could not install them (apt-get install ${PACKAGES.join(' ')})`);
  if (!ready()) return skip(`${X_NET_HTTP2} is missing after installing ${PACKAGES.join(' ')}`);
  const out = join(dir, 'go-sender');
  const build = Bun.spawnSync(['go', 'build', '-o', out, 'main.go'], {
    cwd: join(import.meta.dir, 'go-sender'),
    env: { ...process.env, GOPATH: '/usr/share/gocode', GO111MODULE: 'off', GOFLAGS: '', GOPROXY: 'off' },
    stdout: 'inherit',
    stderr: 'inherit',
  });
  return build.exitCode === 0 ? out : skip('go build of scripts/bench/go-sender failed');
}

export interface GoBaseline {
  go_per_s: number;
  cpu_us_per_request: number;
}

/** One run of the Go sender: `n` pushes over Islet's connection layout (4 connections × 250 streams). */
export async function runGoSender(sender: string, job: { url: string; ca: string; authorization: string; headers: Record<string, string>; body: string; n: number }): Promise<GoBaseline> {
  const input = JSON.stringify({ ...job, connections: APNS_MAX_CONNECTIONS, streams: APNS_STREAMS_PER_CONNECTION });
  const proc = Bun.spawn([sender], { stdin: new Blob([input]), stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error('the Go sender failed');
  return JSON.parse(out) as GoBaseline;
}
