import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../../src/test-support/spawn-server';

export interface IsletProcess {
  url: string;
  host: string;
  adminToken: string;
  /** Everything the server printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the real server the way the product does (`bun src/main.ts serve --config FILE`), on a
 * free port with a fresh database, so the console is served by Bun's HTML bundling and the
 * delivery worker runs (to the simulator). `extraConfig` is TOML appended to the file (`[[apps]]`, …).
 */
export async function startIslet(extraConfig = ''): Promise<IsletProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-e2e-'));
  const adminToken = 'e2e-admin-token';
  const server = await spawnServer(
    dir,
    `[server]\nhost = "127.0.0.1"\nport = 0\n[admin]\ntoken = "${adminToken}"\n[database]\npath = "${join(dir, 'islet.db')}"\n${extraConfig}`,
  );
  return {
    url: server.url,
    host: new URL(server.url).host,
    adminToken,
    output: server.output,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
