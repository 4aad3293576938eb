/**
 * Fan-out and Live Activity starts end to end, through a real server process and the APNs
 * stand-in in its own process (TLS, HTTP/2, ES256 provider tokens verified):
 *  - one `notifications/send` to 100,000 connected iOS devices: time to answer, and time until the
 *    stand-in has accepted every push (deliveries/s end to end); the server's peak RSS, CPU per
 *    delivery (all threads, and its main thread alone) and how long a /healthz request waits for its
 *    event loop meanwhile (p99);
 *  - a Live Activity start for 10,000 iOS users (each with a push-to-start token): time to answer,
 *    and starts delivered per second end to end;
 *  - the baselines, in the same run: apns-baseline.ts, a bare node:http2 client loop sending the
 *    same payload to the same stand-in; go-baseline.ts, the same pushes from Go's x/net/http2 over
 *    the same connections and streams (`fanout_vs_go`: Islet's deliveries/s over Go's, run by run;
 *    left out, saying why, without Go); and the stand-in's own ceiling by h2load when installed.
 * Every run starts a fresh server on a copy of one seeded database. Prints the medians as one JSON line.
 * `--database postgres`: the copy moved into a fresh PostgreSQL (migrate-to-postgres, which analyzes
 * it), and `fanout_database_cpu_us_per_delivery`, the PostgreSQL server's CPU time per delivery.
 *   bun scripts/bench/fanout.ts [--runs 3] [--binary dist/islet] [--devices 100000] [--users 10000]
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importPKCS8, SignJWT } from 'jose';
import { apnsRequest } from '../../src/modules/delivery/payloads';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer } from '../../src/test-support/spawn-server';
import { buildGoSender, runGoSender } from './go-baseline';
import { h2loadCeiling } from './h2load';
import { migrateToPostgres } from '../../src/db/migrate-to-postgres';
import { benchDatabase, benchPostgresCpuUs, benchPostgresDatabase, keyed, stopBenchPostgres } from './postgres-target';
import { seed } from './seed';
import { median, percentile, round, threadCpuDelta, threadCpuUs } from './stats';
import { startStandinProcess } from './standin-process';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    binary: { type: 'string' },
    devices: { type: 'string', default: '100000' },
    users: { type: 'string', default: '10000' },
    database: { type: 'string' },
  },
});
const DATABASE = benchDatabase(values.database);
const RUNS = Number(values.runs);
const DEVICES = Number(values.devices);
const USERS = Number(values.users);
const BUNDLE_ID = 'com.example.bench';
const KEYS = { fanout: 'sk_bench_fanout', starts: 'sk_bench_starts' };
const TIMEOUT_MS = 180_000;
// The title and body the template below renders with the variables of the send.
const TEMPLATE = { slug: 'welcome', title: 'Hello {{ name }}', body: 'You have {{count}} new messages' };
const RENDERED = { type: 'notification' as const, templateSlug: 'welcome', releaseVersion: 1, title: 'Hello Ada', body: 'You have 3 new messages' };

const now = () => performance.timeOrigin + performance.now();
const rssPeakMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
/** CPU time (user + system, all threads) the process used so far, in µs; Linux clock ticks are 10 ms. */
const cpuUs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

const key = apnsKey();
const standin = await startStandinProcess([key]);
const template = mkdtempSync(join(tmpdir(), 'islet-bench-fanout-'));
const runDirs: string[] = [];
try {
  writeFileSync(join(template, 'apns.p8'), key.key);
  writeFileSync(join(template, 'standin-ca.pem'), standin.ca);
  const apns = `bundle_id = "${BUNDLE_ID}"\nteam_id = "${key.teamId}"\nkey_id = "${key.keyId}"\nkey_file = "apns.p8"\nendpoint = "${standin.url}"\nca_file = "standin-ca.pem"\n`;
  const config = (dir: string) =>
    `[server]\nport = 0\nhost = "127.0.0.1"\nrate_limit_per_second = 0\n[admin]\ntoken = "bench"\n[database]\npath = "${join(dir, 'islet.db')}"\n` +
    `[security]\nallow_private_endpoints = true\n[plans.bench]\nlive_activities = true\n` +
    `[[apps]]\nid = "fanout"\nplan = "bench"\napp_secret = "${KEYS.fanout}"\n[apps.apns]\n${apns}` +
    `[[apps]]\nid = "starts"\nplan = "bench"\napp_secret = "${KEYS.starts}"\n[apps.apns]\n${apns}`;
  await seed(template, config(template), { fanout: DEVICES, starts: USERS });
  const goSender = buildGoSender(template);

  const results: Record<string, number>[] = [];
  const authorization = `bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: key.keyId }).setIssuer(key.teamId).setIssuedAt().sign(await importPKCS8(key.key, 'ES256'))}`;
  const alert = apnsRequest(RENDERED, BUNDLE_ID);
  for (let run = 0; run < RUNS; run++) {
    const dir = mkdtempSync(join(tmpdir(), 'islet-bench-fanout-run-'));
    runDirs.push(dir);
    cpSync(template, dir, { recursive: true });
    // PostgreSQL: the seeded SQLite copy moved into a fresh database, as an operator would move over.
    const url = DATABASE === 'postgres' ? await benchPostgresDatabase() : undefined;
    if (url) await migrateToPostgres(join(dir, 'islet.db'), { url, poolSize: 1 });
    const islet = await measureIslet(dir, config(dir), url);
    const job = { url: standin.url, ca: standin.ca, authorization, headers: alert.headers, body: JSON.stringify(alert.body), n: DEVICES };
    const baseline = await runBaseline(job);
    const go = goSender ? await runGoSender(goSender, job) : undefined;
    const result: Record<string, number> = {
      ...islet,
      fanout_baseline_per_s: baseline.baseline_per_s,
      fanout_baseline_cpu_us_per_request: baseline.cpu_us_per_request,
      ...(go ? { fanout_go_per_s: go.go_per_s, fanout_go_cpu_us_per_request: go.cpu_us_per_request } : {}),
    };
    console.error(`fan-out run ${run + 1}: ${JSON.stringify(result)}`);
    results.push(result);
  }

  const ceiling = await h2loadCeiling({ url: standin.url, authorization, headers: alert.headers, body: JSON.stringify(alert.body), n: DEVICES });
  const m = (k: string) => median(results.map((r) => r[k]!));
  console.log(
    JSON.stringify(keyed({
      fanout_answer_ms: m('fanout_answer_ms'),
      fanout_per_s: m('fanout_per_s'),
      fanout_baseline_per_s: m('fanout_baseline_per_s'),
      fanout_ratio: round(median(results.map((r) => r.fanout_per_s! / r.fanout_baseline_per_s!)), 2),
      ...(goSender
        ? { fanout_vs_go: round(median(results.map((r) => r.fanout_per_s! / r.fanout_go_per_s!)), 2), fanout_go_per_s: m('fanout_go_per_s'), fanout_go_cpu_us_per_request: m('fanout_go_cpu_us_per_request') }
        : {}),
      fanout_baseline_cpu_us_per_request: m('fanout_baseline_cpu_us_per_request'),
      fanout_cpu_us_per_delivery: m('fanout_cpu_us_per_delivery'),
      fanout_main_thread_cpu_us_per_delivery: m('fanout_main_thread_cpu_us_per_delivery'),
      ...(DATABASE === 'postgres' ? { fanout_database_cpu_us_per_delivery: m('fanout_database_cpu_us_per_delivery') } : {}),
      fanout_healthz_p99_ms: m('fanout_healthz_p99_ms'),
      standin_ceiling_per_s: ceiling,
      rss_peak_mb: m('rss_peak_mb'),
      la_start_10k_answer_ms: m('la_start_10k_answer_ms'),
      la_start_10k_per_s: m('la_start_10k_per_s'),
    }, DATABASE)),
  );
} finally {
  await standin.stop();
  await stopBenchPostgres();
  for (const dir of [template, ...runDirs]) rmSync(dir, { recursive: true, force: true });
}

/** One fresh server on `dir`: the send to every device, then the Live Activity start, each until the stand-in has them all. */
async function measureIslet(dir: string, toml: string, databaseUrl?: string): Promise<Record<string, number>> {
  const server = await spawnServer(dir, toml, values.binary ? [values.binary] : undefined, { env: databaseUrl ? { ISLET_DATABASE_URL: databaseUrl } : {} });
  try {
    const fanout = serverClient(() => server.url, KEYS.fanout, 'bench');
    const starts = serverClient(() => server.url, KEYS.starts, 'bench');
    await fanout.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [TEMPLATE] }, { authorization: 'Bearer bench' });

    let base = standin.accepted();
    const cpuBefore = cpuUs(server.proc.pid);
    const databaseCpuBefore = databaseUrl ? benchPostgresCpuUs() : 0;
    const threadsBefore = threadCpuUs(server.proc.pid);
    const sentAt = now();
    const sent = await fanout.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'welcome', variables: { name: 'Ada', count: '3' } });
    const fanoutAnswerMs = now() - sentAt;
    if (sent.messageCount !== DEVICES) throw new Error(`expected ${DEVICES} messages, got ${JSON.stringify(sent)}`);
    // While the outbox drains: how long a request waits for the server's event loop (one client, /healthz every 10 ms).
    let draining = true;
    const waits: number[] = [];
    const probing = (async () => {
      while (draining) {
        const at = now();
        await fetch(`${server.url}/healthz`);
        waits.push(now() - at);
        await Bun.sleep(10);
      }
    })();
    const fanoutMs = (await standin.waitFor(base + DEVICES, TIMEOUT_MS)) - sentAt;
    draining = false;
    await probing;
    const cpuPerDelivery = (cpuUs(server.proc.pid) - cpuBefore) / DEVICES;
    const databaseCpuPerDelivery = databaseUrl ? (benchPostgresCpuUs() - databaseCpuBefore) / DEVICES : undefined;
    const threads = threadCpuDelta(threadsBefore, threadCpuUs(server.proc.pid));
    const rssPeak = rssPeakMb(server.proc.pid);
    console.error(`  server CPU µs per delivery by thread: ${Object.entries(threads).filter(([, us]) => us > 0).sort((x, y) => y[1] - x[1]).map(([name, us]) => `${name} ${(us / DEVICES).toFixed(1)}`).join(', ')}`);

    base = standin.accepted();
    const startedAt = now();
    const started = await starts.postOk('/api/apps/starts/live-activities', {
      templateSlug: 'status-tracker',
      attributes: { title: 'Order #1042', steps: 'Ordered,Packed,Shipped,Delivered' },
      contentState: { currentStep: '1', status: 'Packed', eta: '14:30' },
    });
    const startAnswerMs = now() - startedAt;
    if (started.activityCount !== USERS) throw new Error(`expected ${USERS} activities, got ${started.activityCount}`);
    const startsMs = (await standin.waitFor(base + USERS, TIMEOUT_MS)) - startedAt;
    return {
      fanout_answer_ms: Math.round(fanoutAnswerMs),
      fanout_per_s: Math.round(DEVICES / (fanoutMs / 1000)),
      fanout_cpu_us_per_delivery: Math.round(cpuPerDelivery),
      fanout_main_thread_cpu_us_per_delivery: Math.round((threads.main ?? 0) / DEVICES),
      ...(databaseCpuPerDelivery === undefined ? {} : { fanout_database_cpu_us_per_delivery: Math.round(databaseCpuPerDelivery) }),
      fanout_healthz_p99_ms: round(percentile(waits, 0.99), 1),
      rss_peak_mb: Math.round(rssPeak),
      la_start_10k_answer_ms: Math.round(startAnswerMs),
      la_start_10k_per_s: Math.round(USERS / (startsMs / 1000)),
    };
  } finally {
    await server.stop();
  }
}

async function runBaseline(job: { url: string; ca: string; authorization: string; headers: Record<string, string>; body: string; n: number }): Promise<{ baseline_per_s: number; cpu_us_per_request: number }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'apns-baseline.ts')], { stdin: new Blob([JSON.stringify(job)]), stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error('the baseline client failed');
  return JSON.parse(out) as { baseline_per_s: number; cpu_us_per_request: number };
}
