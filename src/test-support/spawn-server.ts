import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDatabase } from './harness';
import { testDatabase } from './postgres';

const MAIN = join(import.meta.dir, '..', 'main.ts');

let describedDatabase: TestDatabase = 'sqlite';
/** The database of the forEachDatabase block running now: what spawnServer serves from unless told. */
export function setSpawnDatabase(database: TestDatabase): void {
  describedDatabase = database;
}

export interface SpawnedServer {
  proc: ReturnType<typeof Bun.spawn>;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Everything the process wrote to stderr, once it has exited. */
  stderr: Promise<string>;
  /** Everything the process printed so far (stdout, then stderr), for failure messages. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>;
}

/**
 * Starts a real server process (`bun src/main.ts serve`, or a compiled binary) in `dir` with the
 * given config, and resolves once it logs that it listens. Use `port = 0` in the config.
 * The stand-ins listen on 127.0.0.1, so the process gets ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS=true
 * unless `env` says otherwise. `database: 'postgres'` (default: that of the forEachDatabase block
 * it runs in, else SQLite) serves from a new database of the test process's PostgreSQL (ISLET_DATABASE_URL).
 * @example const s = await spawnServer(dir, '[server]\nport = 0\n'); await fetch(`${s.url}/readyz`); await s.stop();
 */
export async function spawnServer(
  dir: string,
  config: string,
  command: string[] = [process.execPath, MAIN],
  options: { env?: Record<string, string>; database?: TestDatabase } = {},
): Promise<SpawnedServer> {
  const configPath = join(dir, 'islet.toml');
  writeFileSync(configPath, config);
  // PostgreSQL: a new database on this test process's server, named by the environment as an operator would.
  const postgres = (options.database ?? describedDatabase) === 'postgres' ? { ISLET_DATABASE_URL: (await testDatabase()).url } : {};
  const env = { ...process.env, ISLET_SECURITY_ALLOW_PRIVATE_ENDPOINTS: 'true', ...postgres, ...options.env };
  const proc = Bun.spawn([...command, 'serve', '--config', configPath], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe' });
  const decoder = new TextDecoder();
  let err = '';
  // Both pipes are drained for the whole run: a full pipe would block the server.
  const stderr = (async () => {
    for await (const chunk of proc.stderr) err += decoder.decode(chunk);
    return err;
  })();
  const reader = proc.stdout.getReader();
  let out = '';
  while (!out.includes('"listening"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited before listening: ${await stderr}`);
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
  const url = String(JSON.parse(line).url).replace('0.0.0.0', '127.0.0.1');
  return {
    proc,
    url,
    stderr,
    output: () => `${out}${err}`,
    async stop() {
      proc.kill('SIGTERM');
      return proc.exited;
    },
  };
}
