import { describe, expect, test } from 'bun:test';
import { FakeClock } from '../../lib/clock';
import { pgCluster } from './cluster';
import { pgRateLimiter } from './rate-limiter';

/** Requests of one key that pass in one second from a full bucket, and the wait of the next. */
function burst(limit: (key: string) => number, key: string): { passed: number; wait: number } {
  let passed = 0;
  while (limit(key) === 0) passed++;
  return { passed, wait: limit(key) };
}

describe('rate limits on PostgreSQL: a share per live instance', () => {
  // The share reads only the registry's live count: no database is needed (the pool never connects).
  const cluster = pgCluster({ url: 'postgres://islet@127.0.0.1:1/none', poolSize: 1 });

  test('each instance enforces the rate divided by the live instances, and follows the count as it changes', () => {
    const clock = new FakeClock();
    const limit = pgRateLimiter(cluster, 30, clock);
    cluster.setLiveInstances(1);
    expect(burst(limit, 'app-1')).toEqual({ passed: 60, wait: 1 });
    cluster.setLiveInstances(3);
    expect(burst(limit, 'app-2')).toEqual({ passed: 20, wait: 1 });
    clock.advance(1000);
    // A second refills a third of the rate: 10 requests, the share of one of three instances.
    expect(burst(limit, 'app-2').passed).toBe(10);
    cluster.setLiveInstances(2);
    clock.advance(1000);
    expect(burst(limit, 'app-2').passed).toBe(15);
  });

  test('a share below one request a second still lets one through, then waits for it to refill', () => {
    const clock = new FakeClock();
    const limit = pgRateLimiter(cluster, 1, clock);
    cluster.setLiveInstances(4);
    expect(burst(limit, 'app-1')).toEqual({ passed: 1, wait: 4 });
    clock.advance(4000);
    expect(limit('app-1')).toBe(0);
  });

  test('a rate of 0 never limits, whatever the count', () => {
    const limit = pgRateLimiter(cluster, 0, new FakeClock());
    cluster.setLiveInstances(3);
    for (let i = 0; i < 100; i++) expect(limit('app-1')).toBe(0);
  });
});
