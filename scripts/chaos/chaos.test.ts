import { describe, expect, test } from 'bun:test';
import { faultsScenario, outageScenario } from './fanout-scenarios';

// The short version of `npm run chaos` (scripts/chaos.ts): real server process, stand-in in its own
// process, a few thousand devices. Counts are asserted; times are only printed.
describe('chaos, short', () => {
  test('a provider outage of a few seconds during a fan-out: everything arrives, nothing fails or is lost', async () => {
    const result = await outageScenario({ devices: 3000, outageS: 4 });
    console.error(JSON.stringify(result));
    expect([result.accepted, result.delivered, result.failed, result.lost]).toEqual([3000, 3000, 0, 0]);
    // At least once: only requests cut in flight by the outage can arrive twice.
    expect(result.duplicates).toBeLessThanOrEqual(2000);
    expect(result.outbox).toEqual({ delivered: 3000 });
  }, 120_000);

  test('10% mixed faults (500, 503, 429 with Retry-After, GOAWAY, resets): everything arrives, nothing fails or is lost', async () => {
    const result = await faultsScenario({ devices: 3000, rate: 0.1, seed: 7 });
    console.error(JSON.stringify(result));
    expect([result.accepted, result.delivered, result.failed, result.lost]).toEqual([3000, 3000, 0, 0]);
    expect(result.faultFreeDelivered).toBe(3000);
    expect(result.outbox).toEqual({ delivered: 3000 });
  }, 120_000);
});
