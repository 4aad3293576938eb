import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './eventually';

const CADDYFILE = join(import.meta.dir, '..', '..', 'deploy', 'compose', 'Caddyfile');

export interface CaddyProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/**
 * A real Caddy (Debian's `caddy`) running the Compose recipe's Caddyfile, with its upstreams
 * (islet-1:8080 …) replaced by `upstreams` (host:port), listening on a free loopback port, its
 * admin endpoint off (several may run at once). Resolves once it listens.
 * @example const proxy = await caddyProxy(['127.0.0.1:4001', '127.0.0.1:4002']); await fetch(`${proxy.url}/readyz`); await proxy.close();
 */
export async function caddyProxy(upstreams: string[]): Promise<CaddyProxy> {
  const port = freePort();
  const adapted = Bun.spawnSync(['caddy', 'adapt', '--config', CADDYFILE], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ISLET_SITE_ADDRESS: `:${port}` } });
  if (adapted.exitCode !== 0) throw new Error(`caddy adapt failed: ${adapted.stderr.toString()}`);
  const config = JSON.parse(adapted.stdout.toString());
  config.admin = { disabled: true };
  const server = config.apps.http.servers.srv0;
  server.listen = [`127.0.0.1:${port}`];
  for (const route of server.routes) for (const h of route.handle) if (h.handler === 'reverse_proxy') h.upstreams = upstreams.map((dial) => ({ dial }));
  const dir = mkdtempSync(join(tmpdir(), 'islet-caddy-'));
  writeFileSync(join(dir, 'caddy.json'), JSON.stringify(config));
  const proc = Bun.spawn(['caddy', 'run', '--config', join(dir, 'caddy.json')], { cwd: dir, env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir }, stdout: 'ignore', stderr: 'pipe' });
  let log = '';
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stderr) log += decoder.decode(chunk);
  })();
  const url = `http://127.0.0.1:${port}`;
  await until(
    'caddy answers',
    async () => {
      if (proc.exitCode !== null) throw new Error(`caddy did not start: ${log}`);
      return fetch(`${url}/healthz`).then(() => true, () => false);
    },
    { intervalMs: 50, detail: () => log },
  );
  return {
    url,
    async close() {
      proc.kill('SIGTERM');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}
