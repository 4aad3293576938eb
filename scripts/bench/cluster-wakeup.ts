/**
 * Wake-ups across instances (issue 30, point 3): two served processes on one PostgreSQL, A with
 * `[delivery] worker = false` (it queues, never sends) and B sending. Each of `--sends` single
 * pushes (one device) is queued through A; B must hear of it (LISTEN/NOTIFY) and send it to the
 * APNs stand-in (its own process). Prints, from A's 202 to the stand-in's receipt, p50/p99/max, and
 * the same from the request's start. The target: p99 < 100 ms; without wake-ups B's poll (every
 * 100 ms) would find each send after ~50 ms on average, up to 100 ms.
 *   bun scripts/bench/cluster-wakeup.ts [--sends 200] [--binary dist/islet]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { apnsKey } from '../../src/test-support/delivery-fixtures';
import { apnsToken } from '../../src/test-support/apns-standin';
import { serverClient } from '../../src/test-support/server-client';
import { spawnServer, type SpawnedServer } from '../../src/test-support/spawn-server';
import { benchPostgresDatabase, stopBenchPostgres } from './postgres-target';
import { median, percentile, round } from './stats';
import { benchConfig, startStandinProcess } from './standin-process';

const { values } = parseArgs({ options: { sends: { type: 'string', default: '200' }, binary: { type: 'string' } } });
const SENDS = Number(values.sends);
const SECRET = 'sk_bench_wakeup';
const now = () => performance.timeOrigin + performance.now();

const key = apnsKey();
const standin = await startStandinProcess([key]);
const dirs = [mkdtempSync(join(tmpdir(), 'islet-bench-wakeup-a-')), mkdtempSync(join(tmpdir(), 'islet-bench-wakeup-b-'))];
const servers: SpawnedServer[] = [];
try {
  const url = await benchPostgresDatabase();
  const command = values.binary ? [values.binary] : undefined;
  // Instances of one installation share the master key (each would otherwise make its own islet.key).
  const env = { ISLET_DATABASE_URL: url, ISLET_SECURITY_MASTER_KEY: randomBytes(32).toString('base64') };
  // B first: it migrates; A (API only) then finds the database ready. Both apply the same [[apps]].
  const b = await spawnServer(dirs[1]!, benchConfig(dirs[1]!, key, standin, SECRET), command, { env });
  servers.push(b);
  const a = await spawnServer(dirs[0]!, benchConfig(dirs[0]!, key, standin, SECRET), command, { env: { ...env, ISLET_DELIVERY_WORKER: 'false' } });
  servers.push(a);
  const viaA = serverClient(() => a.url, SECRET, 'bench');
  await viaA.postOk('/api/admin/apps/fanout/releases', { version: 1, status: 'Live', templates: [{ slug: 'ping', title: 'Ping', body: '{{n}}' }] }, { authorization: 'Bearer bench' });
  await viaA.postOk('/api/apps/fanout/devices', { endUserId: 'u1', platform: 'ios', token: apnsToken('wakeup') });

  const fromAnswer: number[] = [];
  const fromRequest: number[] = [];
  for (let i = 0; i < SENDS; i++) {
    const base = standin.accepted();
    const requested = now();
    await viaA.postOk('/api/apps/fanout/notifications/send', { templateSlug: 'ping', variables: { n: String(i) }, targetUsers: ['u1'] });
    const answered = now();
    const received = await standin.waitFor(base + 1, 10_000);
    fromAnswer.push(Math.max(0, received - answered));
    fromRequest.push(received - requested);
    // Apart, so each send finds B idle (its worker asleep until a wake-up or its poll).
    await Bun.sleep(20 + Math.random() * 30);
  }
  const figures = (xs: number[], name: string) => ({
    [`${name}_p50_ms`]: round(median(xs), 1),
    [`${name}_p99_ms`]: round(percentile(xs, 0.99), 1),
    [`${name}_max_ms`]: round(Math.max(...xs), 1),
  });
  console.error(`${SENDS} single sends queued through A (worker off), sent by B`);
  console.log(JSON.stringify({ sends: SENDS, ...figures(fromAnswer, 'cluster_wakeup_after_answer'), ...figures(fromRequest, 'cluster_wakeup_from_request') }));
} finally {
  for (const server of servers.reverse()) await server.stop();
  await standin.stop();
  await stopBenchPostgres();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
