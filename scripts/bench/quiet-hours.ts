/**
 * A send to 100,000 iOS devices across 24 time zones, every one of them inside its quiet hours,
 * through a real server process and the APNs stand-in in its own process (issue 48 point 5):
 *  - the answer time of the send (it decides each device's hold as it writes the deliveries), beside
 *    that of the same send without quiet hours made just before (and drained);
 *  - the server's CPU while the deliveries are held (ms of CPU per second, over 10 s), against the
 *    same server idle before the send: holding costs one indexed read a second;
 *  - the drain of each zone when its window ends: a served process runs on the real clock and the
 *    windows end hours apart, so the bench pulls each zone's release forward (3 s from now, then one
 *    zone every 2 s, in the order their windows end) in the database, as if the hours had passed,
 *    and times from each zone's release until the stand-in accepted its last push.
 * Prints the figures as one JSON line.
 *   bun scripts/bench/quiet-hours.ts [--binary dist/islet] [--devices 100000]
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
const SECRET = 'sk_bench_quiet';
const TIMEOUT_MS = 180_000;
/** The zones of the scheduled-sends bench: whole, half and quarter hours from +14 to -10. */
const ZONES = [
  'Pacific/Kiritimati', 'Pacific/Auckland', 'Australia/Sydney', 'Australia/Adelaide', 'Asia/Tokyo', 'Asia/Shanghai', 'Asia/Bangkok', 'Asia/Dhaka',
  'Asia/Kathmandu', 'Asia/Kolkata', 'Asia/Karachi', 'Asia/Dubai', 'Europe/Moscow', 'Africa/Cairo', 'Europe/Vienna', 'UTC',
  'Atlantic/Azores', 'America/Noronha', 'America/Sao_Paulo', 'America/Halifax', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles',
];

/** The server's CPU over `ms`, in ms of CPU per second. */
const cpuOver = async (pid: number, ms: number) => {
  const before = processCpuUs(pid);
  await Bun.sleep(ms);
  return round((processCpuUs(pid) - before) / 1000 / (ms / 1000), 2);
};
const hhmm = (minute: number) => `${String(Math.floor(minute / 60) % 24).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

const key = apnsKey();
const standin = await startStandinProcess([key]);
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-quiet-'));
try {
  const config = benchConfig(dir, key, standin, SECRET);
  await seed(dir, config, { fanout: DEVICES, starts: 0 });
  const db = new Database(join(dir, 'islet.db'));
  db.run('PRAGMA busy_timeout = 10000');
  // Device i in zone i mod 24: about 4,167 devices per zone.
  const setZone = db.prepare("UPDATE devices SET time_zone = ?1 WHERE app_id = 'fanout' AND CAST(substr(id, 12) AS INTEGER) % 24 = ?2");
  db.transaction(() => ZONES.forEach((zone, i) => setZone.run(zone, i)))();

  const server = await spawnServer(dir, config, values.binary ? [values.binary] : undefined);
  try {
    const client = serverClient(() => server.url, SECRET, 'bench');
    const admin = { authorization: 'Bearer bench' };
    await client.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [{ slug: 'promo', title: 'Sale', body: 'Everything half price' }] }, admin);
    // The same send without quiet hours first, drained: what the limits add to the answer.
    const plainAt = performance.now();
    const plain = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'promo' });
    const plainAnswerMs = Math.round(performance.now() - plainAt);
    const plainDrainedAt = await standin.waitFor(Number(plain.messageCount), TIMEOUT_MS);
    // The stand-in's clock is the epoch's (as the zones' drains below): the plain send's pushes per second.
    const plainPerS = Math.round(Number(plain.messageCount) / ((plainDrainedAt - (Date.now() - (performance.now() - plainAt))) / 1000));
    await standin.reset();
    // Quiet all day but one minute, a minute no zone's clock shows in the next 7 (their offsets are
    // whole quarter hours, so every zone's minute is the UTC minute's, modulo 15): every device is held.
    const utcMinute = Math.floor((Date.now() % 86_400_000) / 60_000);
    const end = (utcMinute + 7) % 1440;
    const patched = await client.call('PATCH', '/api/admin/apps/fanout', { quietHours: { start: hhmm(end + 1), end: hhmm(end) } }, admin);
    if (patched.status !== 200) throw new Error(`PATCH quietHours: ${patched.status} ${JSON.stringify(patched.body)}`);
    const idleCpu = await cpuOver(server.proc.pid, 10_000);

    const sentAt = performance.now();
    const sent = await client.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'promo' });
    const answerMs = Math.round(performance.now() - sentAt);
    if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} devices, got ${JSON.stringify(sent)}`);
    const status = (await client.call('GET', `/api/apps/fanout/notifications/${sent.messageId}`)).body as { deliveries: { held: number } };
    if (status.deliveries.held !== DEVICES) throw new Error(`expected ${DEVICES} held, got ${JSON.stringify(status.deliveries)}`);
    const heldCpu = await cpuOver(server.proc.pid, 10_000);
    if (standin.accepted() !== 0) throw new Error(`${standin.accepted()} pushes went while every device was in its quiet hours`);

    // Each zone's release (when its window ends there), earliest first, pulled forward: the
    // deliveries read first, then rewritten by id in one transaction, done before the first release.
    const held = db
      .query<{ id: number; zone: string; at: number }, []>(
        `SELECT d.id, dev.time_zone AS zone, d.next_attempt_at AS at FROM deliveries d JOIN devices dev ON dev.id = d.device_id
          WHERE d.status = 'held' AND d.hold_kind = 'quiet'`,
      )
      .all();
    const zones = new Map<string, { zone: string; at: number; ids: number[] }>();
    for (const row of held) {
      const zone = zones.get(row.zone) ?? { zone: row.zone, at: row.at, ids: [] };
      zone.ids.push(row.id);
      zones.set(row.zone, zone);
    }
    const releases = [...zones.values()].map((z) => ({ ...z, n: z.ids.length })).sort((a, b) => a.at - b.at);
    const start = Date.now() + 10_000;
    const pull = db.prepare('UPDATE deliveries SET next_attempt_at = ?1 WHERE id = ?2');
    db.transaction(() => releases.forEach((r, i) => r.ids.forEach((id) => pull.run(start + i * 2000, id))))();
    if (Date.now() >= start) throw new Error(`pulling the releases forward took until ${Date.now() - start} ms after the first was due`);
    const drains: number[] = [];
    const rates: number[] = [];
    let expected = 0;
    for (const [i, zone] of releases.entries()) {
      expected += zone.n;
      const lastAt = await standin.waitFor(expected, TIMEOUT_MS);
      drains.push(Math.round(lastAt - (start + i * 2000)));
      rates.push(zone.n / (drains.at(-1)! / 1000));
      console.error(`zone ${i + 1}/${releases.length} (${zone.zone}, window ends ${new Date(zone.at).toISOString()}, ${zone.n} devices): drained ${drains.at(-1)} ms after its release`);
    }
    db.close();
    console.log(
      JSON.stringify({
        quiet_plain_send_answer_ms: plainAnswerMs,
        quiet_plain_drain_per_s: plainPerS,
        quiet_send_answer_ms: answerMs,
        quiet_zones: releases.length,
        quiet_idle_cpu_ms_per_s: idleCpu,
        quiet_held_cpu_ms_per_s: heldCpu,
        quiet_zone_drain_median_ms: Math.round(median(drains)),
        quiet_zone_drain_max_ms: Math.max(...drains),
        quiet_zone_drain_median_per_s: Math.round(median(rates)),
      }),
    );
  } finally {
    await server.stop();
  }
} finally {
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
}
