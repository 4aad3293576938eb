import type { Clock } from '../../lib/clock';

export interface ThrottleOptions {
  /** Wrong tokens allowed before any wait (typos happen). */
  freeFailures?: number;
  /** The first wait; each further failure doubles it. */
  baseLockMs?: number;
  maxLockMs?: number;
  /** Failures older than this are forgotten. */
  windowMs?: number;
}

/**
 * Slows down guessing the admin token: after a few wrong tokens from one address, each further
 * attempt must wait, twice as long every time. A right token clears the address's record.
 * @example const t = signInThrottle(clock); const wait = t.wait(ip); if (!ok) t.fail(ip);
 */
export function signInThrottle(clock: Clock, options: ThrottleOptions = {}) {
  const { freeFailures = 5, baseLockMs = 1000, maxLockMs = 15 * 60_000, windowMs = 60 * 60_000 } = options;
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
      records.set(address, record);
      // Addresses that stopped trying are forgotten, so the map cannot grow without bound.
      if (records.size > 10_000) for (const [key] of records) if (now - records.get(key)!.lastAt > windowMs) records.delete(key);
    },

    succeed(address: string): void {
      records.delete(address);
    },
  };
}

export type SignInThrottle = ReturnType<typeof signInThrottle>;
