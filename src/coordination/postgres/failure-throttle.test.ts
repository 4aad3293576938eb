import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { FakeClock } from '../../lib/clock';
import { clusterPair } from '../../test-support/cluster-pair';
import { POSTGRES_STARTUP_TIMEOUT_MS, POSTGRES_TEST_TIMEOUT_MS, sharedPostgres } from '../../test-support/postgres';
import type { ThrottleOptions } from '../coordination';
import { failureThrottle } from '../local/failure-throttle';
import { pgFailureThrottle } from './failure-throttle';
import { until } from '../../test-support/eventually';

beforeAll(sharedPostgres, POSTGRES_STARTUP_TIMEOUT_MS);

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const GUESSER = '127.0.0.9';

async function twoInstances(options: ThrottleOptions = {}) {
  const pair = await clusterPair();
  const clock = new FakeClock();
  const onA = pgFailureThrottle(pair.a, 'admin-token', clock, options);
  const onB = pgFailureThrottle(pair.b, 'admin-token', clock, options);
  await Promise.all([onA.ready, onB.ready]);
  cleanup = async () => {
    await Promise.all([onA.stop(), onB.stop()]);
    await pair.close();
  };
  return { pair, clock, onA, onB };
}

/** Another instance hears of a change after a round trip through PostgreSQL: generously. */
const HEARD = { timeoutMs: 20_000, intervalMs: 5 };

describe('failure throttle on PostgreSQL', () => {
  test(
    'a guesser spreading attempts over two instances waits as long as one hitting a single instance',
    async () => {
      const { clock, onA, onB } = await twoInstances({ freeFailures: 3, baseLockMs: 1000 });
      const single = failureThrottle(clock, { freeFailures: 3, baseLockMs: 1000 });
      const waits: { spread: number; single: number }[] = [];
      for (let i = 0; i < 8; i++) {
        const instance = i % 2 === 0 ? onA : onB;
        await instance.fail(GUESSER);
        single.fail(GUESSER);
        waits.push({ spread: instance.wait(GUESSER), single: single.wait(GUESSER) });
      }
      expect(waits.map((w) => w.spread)).toEqual(waits.map((w) => w.single));
      expect(waits.at(-1)!.single).toBe(16);
      // The other instance hears of it too, so the guesser's next request there waits as long.
      await until('A makes the guesser wait as long', () => onA.wait(GUESSER) === 16, HEARD);
      expect(onA.wait('127.0.0.10')).toBe(0);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'a success on one instance clears the address on every instance, and names are kept apart',
    async () => {
      const { pair, clock, onA, onB } = await twoInstances({ freeFailures: 0 });
      const other = pgFailureThrottle(pair.b, 'service-keys', clock, { freeFailures: 0 });
      await other.ready;
      await onA.fail(GUESSER);
      await until('B makes the guesser wait', () => onB.wait(GUESSER) > 0, HEARD);
      expect(other.wait(GUESSER)).toBe(0);
      await onB.succeed(GUESSER);
      expect(onB.wait(GUESSER)).toBe(0);
      await until('A clears the address', () => onA.wait(GUESSER) === 0, HEARD);
      await onA.fail(GUESSER);
      expect(onA.wait(GUESSER)).toBe(1);
      await other.stop();
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'an instance starting later knows the locked addresses; failures older than the window are forgotten and their rows deleted',
    async () => {
      const { pair, clock, onA } = await twoInstances({ freeFailures: 0, windowMs: 60 * 60_000 });
      await onA.fail(GUESSER);
      const late = pgFailureThrottle(pair.b, 'admin-token', clock, { freeFailures: 0 });
      await late.ready;
      expect(late.wait(GUESSER)).toBe(1);
      await late.stop();
      clock.advance(2 * 60 * 60_000);
      await onA.fail('127.0.0.11');
      expect(onA.wait(GUESSER)).toBe(0);
      const rows = await pair.a.sql`SELECT address FROM auth_failures`;
      expect(rows.map((r: { address: string }) => r.address)).toEqual(['127.0.0.11']);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );

  test(
    'memory stays bounded: at most maxTracked addresses are kept locally',
    async () => {
      const { onA } = await twoInstances({ freeFailures: 0, maxTracked: 20 });
      for (let i = 0; i < 60; i++) await onA.fail(`127.0.1.${i}`);
      expect(onA.size).toBe(20);
      expect(onA.wait('127.0.1.59')).toBe(1);
      expect(onA.wait('127.0.1.0')).toBe(0);
    },
    POSTGRES_TEST_TIMEOUT_MS,
  );
});
