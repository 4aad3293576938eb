/**
 * Chaos with several instances on one PostgreSQL (issue 30): a fan-out while instances are killed
 * (-9) in turn and restarted, and while PostgreSQL itself restarts, with a client writing through
 * every instance in turn all along. Deliveries are counted at the stand-in (per token: duplicates
 * are receipts beyond the first), acknowledged writes are read back from the database.
 */
import type { SpawnedServer } from '../../src/test-support/spawn-server';
import { clusterResult, roundRobinWriter, type ClusterFleet, type ClusterRun } from './cluster-fleet';
import { now, seconds, send, type ScenarioResult } from './fleet';

const SETTLE_MS = 15 * 60_000;

export interface Disturbance {
  /** kill -9 of the next instance every this many ms after the send (absent: none). */
  killEveryMs?: number;
  /** Kills at most (default: as many as fit in the drain). */
  maxKills?: number;
  /** A killed instance starts again after this long. */
  restartAfterMs?: number;
  /** PostgreSQL stops (fast shutdown) this long after the send (after the kills, when `maxKills` is set)… */
  pgStopAfterMs?: number;
  /** …for this long. */
  pgDownMs?: number;
}

/** A fan-out through one instance of a fresh run, disturbed as told, until the outbox settles. */
export async function disturbedFanout(cf: ClusterFleet, disturbance: Disturbance = {}) {
  const run = await cf.run();
  try {
    await cf.fleet.standin.reset();
    const sentAt = now();
    const accepted = await send(run.next());
    // After the send: the fan-out goes to every device, and the writer's devices are not the fleet's.
    const writer = roundRobinWriter(run);
    let done = false;
    const killer = disturbance.killEveryMs === undefined ? undefined : killInTurn(run, disturbance, () => done);
    // With a set number of kills, PostgreSQL restarts after them (a killed instance restarting
    // while PostgreSQL is down would not start): `pgStopAfterMs` counts from the last restart.
    const pg =
      disturbance.pgStopAfterMs === undefined
        ? undefined
        : (async () => {
            if (disturbance.maxKills !== undefined) await killer;
            return restartPostgres(cf, run, disturbance.pgStopAfterMs!, disturbance.pgDownMs ?? 3000);
          })();
    try {
      const { lastAt, ...result } = await clusterResult(cf.fleet, run, accepted, SETTLE_MS);
      done = true;
      const kills = await killer;
      const restart = await pg;
      await writer.stop();
      const writes = await writer.check();
      return {
        ...result,
        // Lost: pushes accepted and never delivered nor failed, and 2xx writes not in the database.
        lost: result.lost + writes.missing,
        deliveriesLost: result.lost,
        writesLost: writes.missing,
        // Stuck deliveries: until the wait for them was given up.
        drainSeconds: seconds((lastAt || now()) - sentAt),
        writes: { acknowledged: writes.acknowledged, statuses: writer.statuses },
        ...(kills ?? {}),
        ...(restart ?? {}),
      };
    } finally {
      done = true;
      await writer.stop();
    }
  } finally {
    await run.stop();
  }
}

/** Kills slot 0, 1, 2, … in turn (-9), each restarted after a pause; until `finished`. */
async function killInTurn(run: ClusterRun, d: Disturbance, finished: () => boolean) {
  const claimed: number[] = [];
  const takeovers: Promise<number>[] = [];
  let kills = 0;
  while (kills < (d.maxKills ?? Infinity)) {
    const at = now() + d.killEveryMs!;
    while (!finished() && now() < at) await Bun.sleep(Math.min(100, at - now()));
    if (finished()) break;
    const slot = kills++ % run.servers.length;
    const killedAt = now();
    const killed = await run.kill(slot);
    claimed.push(killed.claimed);
    console.error(`  killed instance ${slot} (pid ${killed.pid}) holding ${killed.claimed} claimed deliveries`);
    takeovers.push(untilTakenOver(run, killed.pid, killedAt));
    await Bun.sleep(d.restartAfterMs ?? 3000);
    await run.start(slot);
  }
  const takeoverSeconds = await Promise.all(takeovers);
  return {
    kills,
    claimedAtKills: claimed,
    /** Duplicates can come only from deliveries a killed instance had claimed (sent, not yet recorded). */
    duplicateBound: claimed.reduce((a, b) => a + b, 0),
    takeoverSeconds: takeoverSeconds.length ? Math.max(...takeoverSeconds) : undefined,
  };
}

/** Seconds from the kill until nothing is left under the dead instance's claims (another took them over). */
async function untilTakenOver(run: ClusterRun, pid: number, killedAt: number): Promise<number> {
  while ((await run.claimedBy(pid)) > 0) await Bun.sleep(100);
  return seconds(now() - killedAt);
}

/** Stops PostgreSQL (fast shutdown) after `afterMs`, starts it after `downMs`; seconds until every live instance's /readyz says 200. */
async function restartPostgres(cf: ClusterFleet, run: ClusterRun, afterMs: number, downMs: number) {
  await Bun.sleep(afterMs);
  const stoppedAt = now();
  await cf.pg.pause();
  console.error(`  PostgreSQL stopped`);
  await Bun.sleep(downMs);
  await cf.pg.resume();
  const backAt = now();
  const ready = await Promise.all(run.servers.filter((s): s is SpawnedServer => s !== undefined).map((s) => untilReady(s, backAt)));
  console.error(`  PostgreSQL back after ${seconds(backAt - stoppedAt)} s; instances ready after ${Math.max(...ready)} s`);
  return { pgDownSeconds: seconds(backAt - stoppedAt), readySeconds: Math.max(...ready) };
}

async function untilReady(server: SpawnedServer, since: number): Promise<number> {
  for (;;) {
    const status = await fetch(`${server.url}/readyz`).then((r) => r.status, () => 0);
    if (status === 200) return seconds(now() - since);
    await Bun.sleep(50);
  }
}

/**
 * `cluster-kill`: the fan-out undisturbed, then on a fresh run with one instance killed (-9) every
 * `killEveryS`, a different one each time, restarted after `restartAfterS`.
 */
export async function clusterKillScenario(cf: ClusterFleet, o: { instances: number; killEveryS: number; restartAfterS: number }): Promise<ScenarioResult> {
  const calm = await disturbedFanout(cf);
  console.error(`  undisturbed: ${calm.delivered} delivered in ${calm.drainSeconds} s`);
  const result = await disturbedFanout(cf, { killEveryMs: o.killEveryS * 1000, restartAfterMs: o.restartAfterS * 1000 });
  const drainBound = 2 * calm.drainSeconds + (cf.leaseS ?? 0);
  return {
    scenario: 'cluster-kill',
    instances: o.instances,
    devices: cf.fleet.devices,
    ...result,
    undisturbedDrainSeconds: calm.drainSeconds,
    leaseSeconds: cf.leaseS,
    drainBoundSeconds: drainBound,
    drainWithinBound: result.drainSeconds <= drainBound,
    duplicatesWithinBound: result.duplicates <= (result.duplicateBound ?? 0),
  };
}

/** `cluster-pg-restart`: PostgreSQL stopped and started under the fan-out and the writes through every instance. */
export async function clusterPgRestartScenario(cf: ClusterFleet, o: { instances: number; afterS: number; downS: number }): Promise<ScenarioResult> {
  const result = await disturbedFanout(cf, { pgStopAfterMs: o.afterS * 1000, pgDownMs: o.downS * 1000 });
  return {
    scenario: 'cluster-pg-restart',
    instances: o.instances,
    devices: cf.fleet.devices,
    ...result,
    readyWithin5s: result.readySeconds !== undefined && result.readySeconds <= 5,
  };
}
