import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type SpawnedServer } from './spawn-server';

export interface ServedApp {
  dir: string;
  server: SpawnedServer;
  /** Stops the process and removes its folder. */
  close(): Promise<void>;
}

/**
 * A served process (spawnServer) in a fresh folder, with one app from its configuration: [server]
 * on a free loopback port without rate limit, the admin token, the database in the folder. `more`
 * is appended to the app's table (its [apps.fcm], say); `files` are written into the folder first;
 * `env` is added to the process's environment.
 * @example served = await serveApp({ app: 'idem', secret: 'sk_idem' }); … await served.close();
 */
export async function serveApp(options: { app: string; secret: string; admin?: string; more?: string; files?: Record<string, string>; env?: Record<string, string> }): Promise<ServedApp> {
  const dir = mkdtempSync(join(tmpdir(), `islet-${options.app}-`));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  const config =
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "${options.admin ?? 't'}"\n[database]\npath = "${join(dir, 'i.db')}"\n` +
    `[[apps]]\nid = "${options.app}"\napp_secret = "${options.secret}"\n${options.more ?? ''}`;
  const server = await spawnServer(dir, config, undefined, { env: options.env }).catch((error) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    dir,
    server,
    async close() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
