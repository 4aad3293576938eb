import type { Clock } from '../../lib/clock';
import type { RateLimiter } from '../coordination';

/**
 * In memory, one process (RateLimiter in ../coordination.ts). A token bucket per key: `perSecond`
 * tokens a second, holding at most twice that (and at least one), so short bursts pass.
 * `perSecond = 0` turns it off. A function as `perSecond` is asked at each request (the PostgreSQL
 * coordination's share of a rate follows the number of live instances). At most `maxKeys` buckets
 * are kept: the least recently used go first (a forgotten bucket is a full one, so forgetting never
 * makes a limit stricter).
 * @example const limit = rateLimiter(100, systemClock); const wait = limit('app-1'); // 0 = go
 */
export function rateLimiter(perSecond: number | (() => number), clock: Clock, maxKeys = 10_000): RateLimiter {
  const rateNow = typeof perSecond === 'number' ? () => perSecond : perSecond;
  if (rateNow() <= 0) return () => 0;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key) => {
    const now = clock.now();
    const rate = rateNow();
    const capacity = Math.max(1, rate * 2);
    const bucket = buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / rate);
  };
}
