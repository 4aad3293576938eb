#!/usr/bin/env bun
/**
 * The message list (`GET …/notifications`) and the open report on a large outbox, in this process
 * (SQLite): `--messages` messages of `--deliveries` deliveries each, one of them a fan-out of
 * `--fanout` deliveries, then the first page (50 messages, the fan-out among them) and the page
 * after it, and opens reported by a device that got the fan-out. CPU time per operation, median of
 * `--runs`: counts are computed when asked (no counters), so a page costs the delivery rows of its
 * own messages. Prints `{"list_page_fanout_cpu_ms", "list_page_small_cpu_ms", "open_cpu_ms"}`.
 *   bun scripts/bench/message-list.ts [--messages 200] [--deliveries 100] [--fanout 100000] [--runs 15]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrapSqlite } from '../../src/bootstrap';
import { parseConfig } from '../../src/config/config.load';
import { silentLogger } from '../../src/lib/logger';
import { messageList } from '../../src/modules/notifications/messages/message-list';
import { opensService } from '../../src/modules/notifications/opens/opens.service';
import { notificationMessagesRepository } from '../../src/modules/notifications/messages/notification-messages.repository';
import { devicesRepository } from '../../src/modules/devices/devices.repository';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '200' },
    deliveries: { type: 'string', default: '100' },
    fanout: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '15' },
  },
});
const MESSAGES = Number(values.messages);
const PER_MESSAGE = Number(values.deliveries);
const FANOUT = Number(values.fanout);
const RUNS = Number(values.runs);

const cpuMs = async (work: () => Promise<unknown>) => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'islet-bench-message-list-'));
try {
  const toml = `[database]\npath = "${join(dir, 'islet.db')}"\n[admin]\ntoken = "bench"\n[[apps]]\nid = "bench"\napp_secret = "sk_bench_message_list_0123456789"\n`;
  const { ctx } = await bootstrapSqlite(parseConfig(toml, join(dir, 'islet.toml')), { logger: silentLogger });
  const now = Date.now();
  const device = await devicesRepository(ctx.db.sql).upsert('bench', { endUserId: 'ada', platform: 'android', token: 'bench-open-device' }, now);
  const content = (m: number) => ({ type: 'notification' as const, templateSlug: 'welcome', releaseVersion: 1, title: 'Hello', body: 'Hi', messageId: `msg_bench_${m}` });
  const client = ctx.db.sqlite.$client;
  // Message 0 is the fan-out (to the device above too); the newest 49 are small, so the first page holds it.
  const fanoutIndex = MESSAGES - 50;
  let fanoutPublicId = '';
  await ctx.db.write(async (tx) => {
    for (let m = 0; m < MESSAGES; m++) {
      const isFanout = m === fanoutIndex;
      const targets = isFanout ? [{ deviceId: device.device.id }] : [];
      const { messageId } = await ctx.outbox.enqueue(tx, { appId: 'bench', content: content(m), targets, now: now + m });
      await notificationMessagesRepository(tx).insert(`msg_bench_${m}`, 'bench', messageId);
      if (isFanout) fanoutPublicId = `msg_bench_${m}`;
      client
        .query(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
           INSERT INTO deliveries (app_id, message_id, device_id, token_id, status, attempts, next_attempt_at, created_at, updated_at)
           SELECT 'bench', ?2, 'dev_' || i, 1000000 + i, CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'delivered' END, 1, ?3, ?3, ?3 FROM n`,
        )
        .run(isFanout ? FANOUT - 1 : PER_MESSAGE, messageId, now);
    }
  });
  const total = client.query<{ n: number }, []>('SELECT count(*) AS n FROM deliveries').get()!.n;
  console.error(`message list: ${MESSAGES} messages, ${total} deliveries (one message of ${FANOUT})`);

  const noSchedule = async () => undefined;
  const opens = opensService(ctx, noSchedule);
  const fanoutPage: number[] = [];
  const smallPage: number[] = [];
  const open: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    // Alternating, so a noisy neighbour weighs on each alike.
    fanoutPage.push(await cpuMs(async () => {
      const page = await messageList(ctx, 'bench', 50, 0, noSchedule);
      if (!page.messages.some((m) => m.deliveries.total === FANOUT)) throw new Error('the first page lacks the fan-out');
    }));
    smallPage.push(await cpuMs(() => messageList(ctx, 'bench', 50, 50, noSchedule)));
    open.push(await cpuMs(() => opens.report('bench', fanoutPublicId, { endUserId: 'ada', deviceId: device.device.id })));
  }
  const figures = { list_page_fanout_cpu_ms: median(fanoutPage), list_page_small_cpu_ms: median(smallPage), open_cpu_ms: median(open) };
  console.error(`first page (holds the ${FANOUT}-delivery message): ${figures.list_page_fanout_cpu_ms.toFixed(1)} ms CPU; a page of ${PER_MESSAGE}-delivery messages: ${figures.list_page_small_cpu_ms.toFixed(2)} ms; an open report: ${figures.open_cpu_ms.toFixed(2)} ms`);
  client.close();
  console.log(JSON.stringify(figures));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
