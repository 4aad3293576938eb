/**
 * How long a notification send to 100,000 connected devices takes to answer: seeds the devices
 * straight into a temporary SQLite file, sends once through `app.handle`, prints
 * `{"fanout_answer_ms": N}` as one JSON line. Run with `bun scripts/bench/send-fanout.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { bootstrap } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';

const DEVICES = 100_000;
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
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const created = await call('POST', '/api/admin/apps', admin, { id: 'bench' });
  await call('POST', '/api/admin/apps/bench/releases', admin, {
    version: 1,
    status: 'Live',
    templates: [{ slug: 'welcome', title: 'Hello {{ name }}', body: 'You have {{count}} new messages' }],
  });

  const client = ctx.db.$client;
  const now = Date.now();
  const insertUser = client.prepare('INSERT INTO end_users (app_id, id, tester, created_at, last_seen_at) VALUES (?, ?, 0, ?, ?)');
  const insertDevice = client.prepare(
    `INSERT INTO devices (id, app_id, end_user_id, platform, token, environment, created_at, updated_at)
     VALUES (?, 'bench', ?, ?, ?, 'production', ?, ?)`,
  );
  client.transaction(() => {
    for (let i = 0; i < DEVICES; i++) {
      const user = `user-${i}`;
      insertUser.run('bench', user, now, now);
      insertDevice.run(`dev_bench_${i}`, user, i % 2 === 0 ? 'ios' : 'android', `token-${i}`, now + i, now + i);
    }
  })();

  const started = performance.now();
  const sent = await call('POST', '/api/apps/bench/notifications/send', { 'x-service-key': String(created.appSecret) }, {
    templateSlug: 'welcome',
    variables: { name: 'Ada', count: '3' },
  });
  const ms = Math.round(performance.now() - started);
  if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} messages, got ${JSON.stringify(sent)}`);
  console.log(JSON.stringify({ fanout_answer_ms: ms }));
} finally {
  ctx.db.$client.close();
  rmSync(dir, { recursive: true, force: true });
}
