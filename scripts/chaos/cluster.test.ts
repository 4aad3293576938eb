import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createClusterFleet, type ClusterFleet } from './cluster-fleet';
import { disturbedFanout } from './cluster-scenarios';

// The short version of `npm run chaos -- --instances 3 --database postgres` (scripts/chaos.ts):
// served processes on one real PostgreSQL, the stand-in in its own process, a few thousand
// devices, a client writing through every instance in turn. Counts are asserted; times are only printed.
const INSTANCES = 3;
const DEVICES = 4000;
/** The delivery worker's default maxInFlight (delivery.worker.ts). */
const MAX_IN_FLIGHT = 2000;

describe('chaos on several instances, short', () => {
  let cf: ClusterFleet;
  beforeAll(async () => {
    cf = await createClusterFleet(DEVICES, { instances: INSTANCES });
  }, 120_000);
  afterAll(() => cf?.close());

  test('an instance killed (-9) during a fan-out: nothing lost or failed, duplicates only from what it had claimed', async () => {
    const result = await disturbedFanout(cf, { killEveryMs: 200, maxKills: 1, restartAfterMs: 1000 });
    console.error(JSON.stringify(result));
    expect([result.accepted, result.delivered, result.failed, result.deliveriesLost]).toEqual([DEVICES, DEVICES, 0, 0]);
    expect(result.outbox).toEqual({ delivered: DEVICES });
    expect(result.kills).toBe(1);
    // At least once: only what the killed instance had claimed (sent, its outcome not yet written)
    // goes twice, and a worker holds at most its maxInFlight (2,000) such claims.
    expect(result.duplicates).toBeLessThanOrEqual(result.duplicateBound!);
    expect(result.claimedAtKills![0]).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    expect(result.writes.acknowledged).toBeGreaterThan(0);
    expect(result.writesLost).toBe(0);
  }, 180_000);

  test('PostgreSQL restarted (fast shutdown) during a fan-out and writes through every instance: every 2xx write is stored, every push arrives', async () => {
    const result = await disturbedFanout(cf, { pgStopAfterMs: 300, pgDownMs: 2000 });
    console.error(JSON.stringify(result));
    expect(result.pgDownSeconds).toBeGreaterThan(0);
    // Every write answered 2xx through any instance, before, during or after the restart, is stored.
    expect(result.writes.acknowledged).toBeGreaterThan(0);
    expect(result.writesLost).toBe(0);
    // Nothing left in flight for good (`stuck` names a claim nobody will finish).
    expect(result.stuck).toBeUndefined();
    expect([result.accepted, result.delivered, result.failed, result.deliveriesLost]).toEqual([DEVICES, DEVICES, 0, 0]);
  }, 180_000);
});
