import type { Clock } from '../../lib/clock';
import type { FailureThrottle, ThrottleOptions } from '../coordination';

/**
 * In memory, one process (FailureThrottle in ../coordination.ts). Slows down guessing a secret (the
 * admin token, an App Secret): after a few failures from one client address, each further attempt
 * must wait, twice as long every time. Keyed by address, so one address failing never delays
 * another; a success clears the address's record. Memory stays bounded under address churn: at most
 * `maxTracked` addresses, the stalest dropped first.
 * @example const t = failureThrottle(clock); const wait = t.wait(ip); if (!ok) t.fail(ip);
 */
export function failureThrottle(clock: Clock, options: ThrottleOptions = {}): FailureThrottle {
  const { freeFailures = 5, baseLockMs = 1000, maxLockMs = 15 * 60_000, windowMs = 60 * 60_000, maxTracked = 10_000 } = options;
  // A Map keeps insertion order: re-inserting on each failure makes the first entry the stalest.
  const records = new Map<string, { failures: number; lastAt: number; lockedUntil: number }>();

  const current = (address: string, now: number) => {
    const record = records.get(address);
    if (record && now - record.lastAt > windowMs) {
      records.delete(address);
      return undefined;
    }
    return record;
  };

  return {
    /** Seconds the address must wait before its next attempt; 0 = it may try now. */
    wait(address: string): number {
      const now = clock.now();
      const record = current(address, now);
      return record && record.lockedUntil > now ? Math.ceil((record.lockedUntil - now) / 1000) : 0;
    },

    fail(address: string): void {
      const now = clock.now();
      const record = current(address, now) ?? { failures: 0, lastAt: now, lockedUntil: 0 };
      record.failures += 1;
      record.lastAt = now;
      const over = record.failures - freeFailures;
      if (over > 0) record.lockedUntil = now + Math.min(maxLockMs, baseLockMs * 2 ** (over - 1));
      records.delete(address);
      records.set(address, record);
      while (records.size > maxTracked) records.delete(records.keys().next().value!);
    },

    succeed(address: string): void {
      records.delete(address);
    },

    /** Addresses currently remembered (for tests of the memory bound). */
    get size(): number {
      return records.size;
    },
  };
}
