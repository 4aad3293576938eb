/**
 * How long a Live Activity start for 10,000 connected end users takes to answer: seeds the users
 * and their devices (iOS with and without a push-to-start token, Android, some users with two)
 * straight into a temporary SQLite file, starts once through `app.handle` (first request, nothing
 * warmed up) and prints `{"la_start_10k_answer_ms": N}` as one JSON line.
 * Run with `bun scripts/bench/la-start.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { bootstrap } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';

const USERS = 10_000;
const ADMIN_TOKEN = 'bench-admin-token';

const dir = mkdtempSync(join(tmpdir(), 'islet-bench-'));
const dbPath = join(dir, 'islet.db');
const config = parseConfig(
  `[database]\npath = "${dbPath}"\n[admin]\ntoken = "${ADMIN_TOKEN}"\n[server]\nrate_limit_per_second = 0\n`,
  join(dir, 'islet.toml'),
);
const { ctx } = bootstrap(config, { logger: silentLogger });
const app = createApp(ctx);

async function call(method: string, path: string, headers: Record<string, string>, body: unknown) {
  const text = JSON.stringify(body);
  const res = await app.handle(
    new Request(`http://bench${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
      body: text,
    }),
  );
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

try {
  const created = await call('POST', '/api/admin/apps', { authorization: `Bearer ${ADMIN_TOKEN}` }, { id: 'bench', plan: 'pro' });

  const client = ctx.db.$client;
  const now = Date.now();
  const insertUser = client.prepare('INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES (?, ?, 0, ?, ?)');
  const insertDevice = client.prepare(
    `INSERT INTO devices (id, app_id, end_user_id, platform, token, push_to_start_token, environment, created_at, updated_at)
     VALUES (?, 'bench', ?, ?, ?, ?, 'production', ?, ?)`,
  );
  let devices = 0;
  client.transaction(() => {
    for (let i = 0; i < USERS; i++) {
      const user = `user-${i}`;
      insertUser.run('bench', user, now, now);
      const ios = i % 2 === 0;
      insertDevice.run(`dev_bench_${devices++}`, user, ios ? 'ios' : 'android', `token-${i}`, ios && i % 10 !== 0 ? `p2s-${i}` : null, now, now);
      // Every fifth user also has a second phone of the other platform.
      if (i % 5 === 0) insertDevice.run(`dev_bench_${devices++}`, user, ios ? 'android' : 'ios', `token-b-${i}`, ios ? null : `p2s-b-${i}`, now + 1, now + 1);
    }
  })();

  const started = performance.now();
  const result = await call('POST', '/api/apps/bench/live-activities', { 'x-service-key': String(created.appSecret) }, {
    templateSlug: 'status-tracker',
    attributes: { title: 'Order #1042', steps: 'Ordered,Packed,Shipped,Delivered' },
    contentState: { currentStep: '1', status: 'Packed', eta: '14:30' },
  });
  const ms = Math.round(performance.now() - started);
  if (result.activityCount !== USERS) throw new Error(`expected ${USERS} activities, got ${result.activityCount}`);
  const queued = client.query<{ n: number }, []>('SELECT count(*) AS n FROM deliveries').get()?.n;
  if (queued !== devices) throw new Error(`expected ${devices} deliveries, got ${queued}`);
  console.error(`${USERS} users, ${devices} devices: ${result.activityCount} activities and ${queued} deliveries in ${ms} ms`);
  console.log(JSON.stringify({ la_start_10k_answer_ms: ms }));
} finally {
  ctx.db.$client.close();
  rmSync(dir, { recursive: true, force: true });
}
