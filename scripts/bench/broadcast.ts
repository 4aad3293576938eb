/**
 * One update to 100,000 followers (issue 31): by broadcast (one request to an APNs channel) against
 * the same audience by per-device pushes (one request per device: the notification fan-out's path,
 * which per-device Live Activity updates share), through a real server process and the APNs
 * stand-in in its own process (TLS, HTTP/2, ES256 provider tokens verified). For each: requests the
 * stand-in accepted, the server's CPU time, and the time from the API call until the stand-in has
 * everything. Prints one JSON line.
 *   bun scripts/bench/broadcast.ts [--devices 100000] [--binary dist/islet]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { seed } from './seed';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '100000' }, binary: { type: 'string' } } });
const DEVICES = Number(values.devices);
const KEY = 'sk_bench_broadcast';
const TIMEOUT_MS = 180_000;

const now = () => performance.timeOrigin + performance.now();
/** CPU time (user + system, all threads) the process used so far, in ms; Linux clock ticks are 10 ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const key = apnsKey();
const standin = await startStandinProcess([key]);
const dir = mkdtempSync(join(tmpdir(), 'islet-bench-broadcast-'));
try {
  const toml = benchConfig(dir, key, standin, KEY, { broadcasts: true });
  await seed(dir, toml, { fanout: DEVICES, starts: 0 });
  const server = await spawnServer(dir, toml, values.binary ? [values.binary] : undefined);
  try {
    const { postOk, call } = serverClient(() => server.url, KEY, 'bench');
    const pid = server.proc.pid;

    // By broadcast: the channel is made first (as when the event is announced), then one update.
    const broadcast = await postOk('/api/apps/fanout/broadcasts', { templateSlug: 'metric-live', attributes: { label: 'Lions v Tigers' }, contentState: { value: '0 - 0' } });
    const deadline = Date.now() + 10_000;
    while ((await call('GET', `/api/apps/fanout/broadcasts/${broadcast.id}`)).body.channel.state !== 'open')
      if (Date.now() > deadline) throw new Error('the channel was not made');
      else await Bun.sleep(10);
    let base = standin.accepted();
    let cpu = cpuMs(pid);
    let at = now();
    const patched = await call('PATCH', `/api/apps/fanout/broadcasts/${broadcast.id}`, { contentState: { value: '1 - 0', trend: 'up' } });
    if (patched.status !== 200) throw new Error(`PATCH answered ${patched.status}`);
    const broadcastMs = (await standin.waitFor(base + 1, TIMEOUT_MS)) - at;
    await Bun.sleep(200);
    const broadcastRequests = standin.accepted() - base;
    const broadcastCpu = cpuMs(pid) - cpu;

    // Per device: the same audience, one request each.
    await postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [{ slug: 'score', title: 'Lions v Tigers', body: '{{score}}' }] }, { authorization: 'Bearer bench' });
    base = standin.accepted();
    cpu = cpuMs(pid);
    at = now();
    const sent = await postOk('/api/apps/fanout/notifications/send', { templateSlug: 'score', variables: { score: '1 - 0' } });
    if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} messages, got ${JSON.stringify(sent)}`);
    const perDeviceMs = (await standin.waitFor(base + DEVICES, TIMEOUT_MS)) - at;
    const perDeviceRequests = standin.accepted() - base;
    const perDeviceCpu = cpuMs(pid) - cpu;
    const result = {
      followers: DEVICES,
      broadcast_requests: broadcastRequests,
      broadcast_cpu_ms: broadcastCpu,
      broadcast_done_ms: Math.round(broadcastMs),
      per_device_requests: perDeviceRequests,
      per_device_cpu_ms: perDeviceCpu,
      per_device_done_ms: Math.round(perDeviceMs),
    };
    console.error(
      `one update to ${DEVICES} followers: broadcast ${broadcastRequests} request, ${broadcastCpu} ms CPU, done in ${result.broadcast_done_ms} ms; ` +
        `per device ${perDeviceRequests} requests, ${perDeviceCpu} ms CPU, done in ${result.per_device_done_ms} ms`,
    );
    console.log(JSON.stringify(result));
  } finally {
    await server.stop();
  }
} finally {
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
}
