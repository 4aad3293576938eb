/**
 * A `sendAtLocal` to 100,000 iOS devices across 24 time zones, through a real server process and
 * the APNs stand-in in its own process:
 *  - the answer time of the send (it counts the devices it would reach now, writes its parts);
 *  - the server's CPU while the send waits (ms of CPU per second, over 10 s), against the same
 *    server idle before the send: waiting costs nothing when only due parts are read;
 *  - the drain of each zone when due: a served process runs on the real clock and the zones are
 *    hours apart, so the bench pulls each part's due time forward (3 s from now, then one part
 *    every 2 s, earliest zone first) in the database, as if the hours had passed, and times from
 *    each part's due time until the stand-in accepted its last push.
 * Prints the figures as one JSON line.
 *   bun scripts/bench/scheduled.ts [--binary dist/islet] [--devices 100000]
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { seed } from './seed';
import { median, processCpuUs, round } from './stats';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({ options: { binary: { type: 'string' }, devices: { type: 'string', default: '100000' } } });
const DEVICES = Number(values.devices);
const SECRET = 'sk_bench_scheduled';
const TIMEOUT_MS = 180_000;
/** 24 zones, whole, half and quarter hours from +14 to -10 (a few share an offset on some dates: they form one part). */
const ZONES = [
  'Pacific/Kiritimati', 'Pacific/Auckland', 'Australia/Sydney', 'Australia/Adelaide', 'Asia/Tokyo', 'Asia/Shanghai', 'Asia/Bangkok', 'Asia/Dhaka',
  'Asia/Kathmandu', 'Asia/Kolkata', 'Asia/Karachi', 'Asia/Dubai', 'Europe/Moscow', 'Africa/Cairo', 'Europe/Vienna', 'UTC',
  'Atlantic/Azores', 'America/Noronha', 'America/Sao_Paulo', 'America/Halifax', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles',
];

/** The server's CPU over `ms` of waiting, in ms of CPU per second. */
const cpuWhileWaiting = async (pid: number, ms: number) => {
  const before = processCpuUs(pid);
  await Bun.sleep(ms);
  return round((processCpuUs(pid) - before) / 1000 / (ms / 1000), 2);
};

const key = apnsKey();
const standin = await startStandinProcess([key]);
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-scheduled-'));
try {
  const config = benchConfig(dir, key, standin, SECRET);
  await seed(dir, config, { fanout: DEVICES, starts: 0 });
  const db = new Database(join(dir, 'islet.db'));
  // The server writes the same file meanwhile: wait for its lock instead of failing.
  db.run('PRAGMA busy_timeout = 10000');
  // Device i in zone i mod 24: about 4,167 devices per zone.
  const setZone = db.prepare("UPDATE devices SET time_zone = ?1 WHERE app_id = 'fanout' AND CAST(substr(id, 12) AS INTEGER) % 24 = ?2");
  db.transaction(() => ZONES.forEach((zone, i) => setZone.run(zone, i)))();

  const server = await spawnServer(dir, config, values.binary ? [values.binary] : undefined);
  try {
    const client = serverClient(() => server.url, SECRET, 'bench');
    await client.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [{ slug: 'remind', title: 'Good morning', body: 'It is 9:00 where you are' }] }, { authorization: 'Bearer bench' });
    const idleCpu = await cpuWhileWaiting(server.proc.pid, 10_000);

    // 09:00 two days from now: ahead in every zone.
    const wall = `${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)}T09:00`;
    const sentAt = performance.now();
    const sent = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'remind', sendAtLocal: wall });
    const answerMs = Math.round(performance.now() - sentAt);
    if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} devices, got ${JSON.stringify(sent)}`);
    const waitingCpu = await cpuWhileWaiting(server.proc.pid, 10_000);

    // The parts that reach devices, earliest first, with the devices each reaches (the message status counts them).
    const status = (await client.call('GET', `/api/apps/fanout/notifications/${sent.messageId}`)).body as { schedule: { parts: { dueAt: string; deliveries: number }[] } };
    const parts = status.schedule.parts;
    const ids = db.query<{ id: number; dueAt: number }, [string]>('SELECT id, due_at AS dueAt FROM scheduled_sends WHERE public_id = ?1 ORDER BY due_at').all(String(sent.messageId));
    const byDue = new Map(ids.map((r) => [new Date(r.dueAt).toISOString(), r.id]));
    const start = Date.now() + 3000;
    const pull = db.prepare('UPDATE scheduled_sends SET due_at = ?1 WHERE id = ?2');
    parts.forEach((p, i) => pull.run(start + i * 2000, byDue.get(p.dueAt)!));
    const drains: number[] = [];
    const rates: number[] = [];
    let expected = standin.accepted();
    for (const [i, part] of parts.entries()) {
      expected += part.deliveries;
      const lastAt = await standin.waitFor(expected, TIMEOUT_MS);
      drains.push(Math.round(lastAt - (start + i * 2000)));
      rates.push(part.deliveries / (drains.at(-1)! / 1000));
      console.error(`part ${i + 1}/${parts.length} (${part.dueAt}, ${part.deliveries} devices): drained ${drains.at(-1)} ms after it was due`);
    }
    db.close();
    console.log(
      JSON.stringify({
        scheduled_local_answer_ms: answerMs,
        scheduled_local_parts: parts.length,
        scheduled_idle_cpu_ms_per_s: idleCpu,
        scheduled_waiting_cpu_ms_per_s: waitingCpu,
        scheduled_zone_drain_median_ms: Math.round(median(drains)),
        scheduled_zone_drain_max_ms: Math.max(...drains),
        scheduled_zone_drain_median_per_s: Math.round(median(rates)),
      }),
    );
  } finally {
    await server.stop();
  }
} finally {
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
}
