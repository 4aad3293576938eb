import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../app';
import { bootstrap, bootstrapSqlite } from '../bootstrap';
import { parseConfig } from '../config/config.load';
import type { AppContext } from '../context';
import type { SqliteStore } from '../db/sqlite/store';
import { FakeClock } from '../lib/clock';
import { createLogger, type Logger } from '../lib/logger';
import { testDatabase } from './postgres';

export const ADMIN_TOKEN = 'test-admin-token';

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A context on the SQLite store, whose connection tests may read directly. */
export type TestContext = AppContext & { db: SqliteStore };

/** The databases the same tests run on (see forEachDatabase). */
export type TestDatabase = 'sqlite' | 'postgres';

export interface HarnessOptions {
  toml?: string;
  clock?: FakeClock;
  logger?: Logger;
  /** SQLite (default: a file in the temporary folder) or a new database on the test process's PostgreSQL. */
  database?: TestDatabase;
}

export interface Harness<C extends AppContext = TestContext> {
  dir: string;
  dbPath: string;
  ctx: C;
  app: ReturnType<typeof createApp>;
  clock: FakeClock;
  logs: string[];
  request<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<TestResponse<T>>;
  /** A request with the admin bearer token. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
  /** A request with the given app's service key. */
  service<T = any>(appId: string, method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
  /** Creates an app through the admin API and remembers its secrets for `service`. */
  createApp(input?: { id?: string; plan?: string; name?: string }): Promise<{ id: string; appSecret: string; signingSecret: string }>;
  close(): Promise<void>;
}

/**
 * A real application on a real SQLite file in a fresh temporary folder, with a fake clock and
 * captured logs. Extra TOML is appended to a minimal configuration.
 * @example const h = await createHarness(); const { id } = await h.createApp();
 */
export function createHarness(options?: HarnessOptions & { database?: 'sqlite' }): Promise<Harness>;
export function createHarness(options: HarnessOptions): Promise<Harness<AppContext>>;
export async function createHarness(options: HarnessOptions = {}): Promise<Harness<AppContext>> {
  const dir = mkdtempSync(join(tmpdir(), 'islet-test-'));
  const dbPath = join(dir, 'islet.db');
  const clock = options.clock ?? new FakeClock();
  const logs: string[] = [];
  const config = parseConfig(
    // The stand-ins listen on 127.0.0.1, which the outbound policy refuses without the flag.
    // [server] stays last: extra TOML may continue it with bare keys.
    `[database]\npath = "${dbPath}"\n${options.database === 'postgres' ? `url = "${(await testDatabase()).url}"\n` : ''}[admin]\ntoken = "${ADMIN_TOKEN}"\n[security]\nallow_private_endpoints = true\n[server]\nrate_limit_per_second = 0\n${options.toml ?? ''}`,
    join(dir, 'islet.toml'),
  );
  const bootOptions = { clock, logger: options.logger ?? createLogger('debug', (l) => logs.push(l)) };
  const { ctx } = options.database === 'postgres' ? await bootstrap(config, bootOptions) : await bootstrapSqlite(config, bootOptions);
  const app = createApp(ctx);
  const keys = new Map<string, string>();

  const request: Harness['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    // What an HTTP client sends with a body, which the body-size check reads.
    if (body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(body));
    const res = await app.handle(new Request(`http://islet.test${path}`, { method, headers, body }));
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };

  const harness: Harness<AppContext> = {
    dir,
    dbPath,
    ctx,
    app,
    clock,
    logs,
    request,
    admin: (method, path, body) => request(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    service: (appId, method, path, body) => request(method, path, { body, headers: { 'x-service-key': keys.get(appId) ?? 'unknown' } }),
    async createApp(input = {}) {
      const res = await harness.admin('POST', '/api/admin/apps', input);
      if (res.status !== 201) throw new Error(`createApp: ${res.status} ${JSON.stringify(res.body)}`);
      keys.set(res.body.app.id, res.body.appSecret);
      return { id: res.body.app.id, appSecret: res.body.appSecret, signingSecret: res.body.signingSecret };
    },
    async close() {
      await ctx.db.close();
      await ctx.coordination.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
