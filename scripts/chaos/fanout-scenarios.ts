/**
 * Chaos during a fan-out of one notification to every device of a fleet (fleet.ts): the server
 * killed with SIGKILL again and again, the provider gone for minutes, and a share of mixed faults.
 */
import { createFleet, fanoutResult, now, seconds, send, type ScenarioResult } from './fleet';

const SETTLE_MS = 15 * 60_000;

/** kill -9 every `intervalMs` after the server listens, `kills` times, during the fan-out; then it is left to finish. */
export async function killScenario(options: { devices: number; kills: number; intervalMs: number }): Promise<ScenarioResult> {
  const fleet = await createFleet(options.devices);
  try {
    const { dir, dbPath, config } = fleet.prepare();
    let server = await fleet.spawn(dir, config);
    const startedAt = now();
    const accepted = await send(server);
    let kills = 0;
    for (; kills < options.kills; kills++) {
      await Bun.sleep(options.intervalMs);
      server.proc.kill('SIGKILL');
      await server.proc.exited;
      server = await fleet.spawn(dir, config);
    }
    try {
      const result = await fanoutResult(fleet, dbPath, accepted, SETTLE_MS);
      return { scenario: 'kill-9', ...result, drainSeconds: seconds(now() - startedAt), kills, devices: options.devices };
    } finally {
      await server.stop();
    }
  } finally {
    await fleet.close();
  }
}

/**
 * The provider stops listening (connections refused, those open dropped) as soon as the send is
 * answered (the fan-out has just begun), for `outageS` seconds. drainSeconds: from its return to
 * the last delivery.
 */
export async function outageScenario(options: { devices: number; outageS: number }): Promise<ScenarioResult> {
  const fleet = await createFleet(options.devices);
  try {
    const { dir, dbPath, config } = fleet.prepare();
    const server = await fleet.spawn(dir, config);
    try {
      const sentAt = now();
      const accepted = await send(server);
      fleet.standin.goAway();
      const wentAt = now();
      const deliveredBefore = fleet.standin.distinct();
      await Bun.sleep(options.outageS * 1000);
      fleet.standin.comeBack();
      const backAt = now();
      const result = await fanoutResult(fleet, dbPath, accepted, SETTLE_MS);
      const lastAt = await fleet.standin.waitForDistinct(result.delivered, 1000);
      return {
        scenario: 'outage',
        ...result,
        drainSeconds: seconds(lastAt - backAt),
        outageSeconds: seconds(backAt - wentAt),
        deliveredBeforeOutage: deliveredBefore,
        totalSeconds: seconds(lastAt - sentAt),
        devices: options.devices,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await fleet.close();
  }
}

/**
 * The same fan-out twice on fresh servers: without faults, then with `rate` of the requests meeting
 * a fault (500, 503, 429 with Retry-After, GOAWAY, stream reset, evenly). drainSeconds: from the
 * send to the last delivery with faults; faultFreeSeconds: the same without.
 */
export async function faultsScenario(options: { devices: number; rate: number; seed?: number }): Promise<ScenarioResult> {
  const clean = await fanoutOnce(options.devices, 0, options.seed);
  const faulty = await fanoutOnce(options.devices, options.rate, options.seed);
  return {
    scenario: 'faults',
    ...faulty.result,
    drainSeconds: faulty.seconds,
    faultFreeSeconds: clean.seconds,
    faultFreeDelivered: clean.result.delivered,
    ratio: Math.round((faulty.seconds / clean.seconds) * 100) / 100,
    rate: options.rate,
    devices: options.devices,
  };
}

async function fanoutOnce(devices: number, rate: number, seed: number | undefined) {
  const fleet = await createFleet(devices, { seed });
  try {
    const { dir, dbPath, config } = fleet.prepare();
    const server = await fleet.spawn(dir, config);
    try {
      if (rate > 0) fleet.standin.faults({ rate, retryAfterS: 1 });
      const sentAt = now();
      const accepted = await send(server);
      const result = await fanoutResult(fleet, dbPath, accepted, SETTLE_MS);
      const lastAt = await fleet.standin.waitForDistinct(result.delivered, 1000);
      return { result, seconds: seconds(lastAt - sentAt) };
    } finally {
      await server.stop();
    }
  } finally {
    await fleet.close();
  }
}
