/**
 * The scheduler's leader killed (-9), and wake-ups across instances: the two cluster scenarios
 * about who does the work rather than whether it is done.
 */
import type { SpawnedServer } from '../../src/test-support/spawn-server';
import { percentile, round } from '../bench/stats';
import { adminGet, apiOnlyInstances, roundRobinWriter, type ClusterFleet, type ClusterRun } from './cluster-fleet';
import { APP, now, seconds, send, SERVICE_KEY, type ScenarioResult } from './fleet';

const HOUR_MS = 3_600_000;
/** The target: the next leader runs its first tick within this. */
const TAKEOVER_TARGET_S = 15;
const WAIT_MS = 120_000;

interface Instance {
  id: string;
  leader: boolean;
  pid?: number;
}

/** The live instances as one instance lists them (GET /api/admin/instances); undefined when it has no such endpoint. */
async function instancesOf(server: SpawnedServer): Promise<Instance[] | undefined> {
  const { status, body } = await adminGet(server, '/api/admin/instances');
  if (status === 404) return undefined;
  if (status !== 200) throw new Error(`GET /api/admin/instances answered ${status}`);
  const list = (Array.isArray(body) ? body : (body as { instances: Instance[] }).instances) as Instance[];
  return list;
}

/** The slot of the server an instance id belongs to (ids are `<host>-<pid>-<random>`). */
function slotOf(run: ClusterRun, instance: Instance): number {
  return run.servers.findIndex((s) => s && (instance.pid === s.proc.pid || instance.id.includes(`-${s.proc.pid}-`)));
}

async function startActivity(server: SpawnedServer): Promise<string> {
  const res = await fetch(`${server.url}/api/apps/${APP}/live-activities`, {
    method: 'POST',
    headers: { 'x-service-key': SERVICE_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ templateSlug: 'progress-bar', attributes: { label: 'Upload' }, contentState: { progress: '0' }, targetUsers: ['user-0'] }),
  });
  const body = (await res.json()) as { activities?: { id: string }[] };
  if (!res.ok || !body.activities?.[0]) throw new Error(`starting an activity answered ${res.status}: ${JSON.stringify(body)}`);
  return body.activities[0].id;
}

async function activityState(server: SpawnedServer, id: string): Promise<string> {
  const res = await fetch(`${server.url}/api/apps/${APP}/live-activities/${id}`, { headers: { 'x-service-key': SERVICE_KEY } });
  return ((await res.json()) as { state?: string }).state ?? `answered ${res.status}`;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_MS / 1000} s`);
    await Bun.sleep(100);
  }
}

/**
 * `cluster-leader`: finds the leader (GET /api/admin/instances), kills it (-9) while a client
 * writes through every instance, and ages a Live Activity past iOS's 8 hours behind its back (its
 * start moved 9 h into the past in the database). Reports the seconds until another instance
 * says it leads, and until that activity is Ended by the expiry job (the new leader's first tick
 * that reaches it): quota and expiry go on without the dead leader.
 */
export async function clusterLeaderScenario(cf: ClusterFleet, o: { instances: number }): Promise<ScenarioResult> {
  const run = await cf.run();
  const writer = roundRobinWriter(run);
  try {
    const counts = async () => {
      await writer.stop();
      const writes = await writer.check();
      return { accepted: writes.acknowledged, delivered: writes.acknowledged - writes.missing, lost: writes.missing, failed: 0, duplicates: 0 };
    };
    const listed = await instancesOf(run.servers[0]!);
    if (!listed) return { scenario: 'cluster-leader', instances: o.instances, ...(await counts()), drainSeconds: 0, skipped: 'GET /api/admin/instances is not served (no leader election in this build)' };
    const leader = await until('an instance leading', async () => {
      const found = (await instancesOf(run.next()))?.find((i) => i.leader);
      return found && slotOf(run, found) >= 0 ? found : undefined;
    });
    const slot = slotOf(run, leader);
    const activity = await startActivity(run.servers[(slot + 1) % run.servers.length]!);
    const killedAt = now();
    await run.kill(slot);
    await run.sql`UPDATE activities SET started_at = started_at - ${9 * HOUR_MS} WHERE id = ${activity}`;
    await run.sql`UPDATE activity_instances SET started_at = started_at - ${9 * HOUR_MS} WHERE activity_id = ${activity}`;
    const [takeoverSeconds, expirySeconds] = await Promise.all([
      until('another instance leading', async () => ((await instancesOf(run.next()))?.some((i) => i.leader && i.id !== leader.id) ? seconds(now() - killedAt) : undefined)),
      until('the aged activity ending', async () => ((await activityState(run.next(), activity)) === 'Ended' ? seconds(now() - killedAt) : undefined)),
    ]);
    await run.start(slot);
    return {
      scenario: 'cluster-leader',
      instances: o.instances,
      ...(await counts()),
      drainSeconds: expirySeconds,
      killedLeader: leader.id,
      takeoverSeconds,
      expiryEnforcedSeconds: expirySeconds,
      takeoverWithin15s: expirySeconds <= TAKEOVER_TARGET_S,
    };
  } finally {
    await writer.stop();
    await run.stop();
  }
}

/**
 * `cluster-wakeup`: `sends` notifications to one device each, one after another, all queued
 * through instance 0 restarted with `[delivery] worker = false` (it sends nothing) while the
 * others send; in a build without that key, through each instance in turn, all sending.
 * Latency: from the 2xx answer to the stand-in's receipt.
 */
export async function clusterWakeupScenario(cf: ClusterFleet, o: { instances: number; sends: number }): Promise<ScenarioResult> {
  const run = await cf.run();
  try {
    const apiOnly = apiOnlyInstances() && o.instances > 1;
    if (apiOnly) {
      await run.servers[0]!.stop();
      await run.start(0, '[delivery]\nworker = false\n');
    }
    const standin = cf.fleet.standin;
    const latencies: number[] = [];
    for (let i = 0; i < o.sends; i++) {
      const base = standin.accepted();
      await send(apiOnly ? run.servers[0]! : run.next(), [`user-${i % cf.fleet.devices}`]);
      const answeredAt = now();
      const receivedAt = await standin.waitFor(base + 1, 30_000);
      latencies.push(Math.max(0, receivedAt - answeredAt));
    }
    const p99 = round(percentile(latencies, 0.99), 1);
    return {
      scenario: 'cluster-wakeup',
      instances: o.instances,
      accepted: o.sends,
      delivered: latencies.length,
      lost: o.sends - latencies.length,
      failed: 0,
      duplicates: 0,
      drainSeconds: seconds(latencies.reduce((a, b) => a + b, 0)),
      queuedThrough: apiOnly ? 'instance 0 ([delivery] worker = false), the others sending' : 'each instance in turn, every instance sending',
      p50Ms: round(percentile(latencies, 0.5), 1),
      p99Ms: p99,
      maxMs: round(Math.max(...latencies), 1),
      p99Under100ms: p99 < 100,
    };
  } finally {
    await run.stop();
  }
}
