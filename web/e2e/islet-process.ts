import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(import.meta.dir, '..', '..', 'src', 'main.ts');

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
 * delivery worker runs (to the simulator).
 */
export async function startIslet(): Promise<IsletProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-e2e-'));
  const adminToken = 'e2e-admin-token';
  const config = join(dir, 'islet.toml');
  writeFileSync(
    config,
    `[server]\nhost = "127.0.0.1"\nport = 0\n[admin]\ntoken = "${adminToken}"\n[database]\npath = "${join(dir, 'islet.db')}"\n`,
  );
  const proc = Bun.spawn([process.execPath, MAIN, 'serve', '--config', config], {
    cwd: dir,
    env: { ...process.env, ISLET_CONFIG: '' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  const decoder = new TextDecoder();
  // Keep reading both streams for the whole run: a full pipe would block the server.
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) out += decoder.decode(chunk);
  };
  void drain(proc.stderr);
  const reader = proc.stdout.getReader();
  while (!out.includes('"listening"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`islet exited before listening:\n${out}`);
    out += decoder.decode(value);
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out += decoder.decode(value);
    }
  })();
  const line = out.split('\n').find((l) => l.includes('"listening"'))!;
  const url = String(JSON.parse(line).url).replace(/\/$/, '');
  return {
    url,
    host: new URL(url).host,
    adminToken,
    output: () => out,
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
