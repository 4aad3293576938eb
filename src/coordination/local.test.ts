import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../lib/clock';
import { describeCoordinationContract } from '../test-support/coordination-contract';
import { localCoordination } from './local';
import { failureThrottle } from './local/failure-throttle';
import { rateLimiter } from './local/rate-limiter';
import { localSessionStore } from './local/sessions';

/** A local coordination on a database path in a fresh folder (the instance lock is a file beside it). */
function makeLocal() {
  const dir = mkdtempSync(join(tmpdir(), 'islet-coordination-'));
  return { coordination: localCoordination({ databasePath: join(dir, 'islet.db') }), close: () => rmSync(dir, { recursive: true, force: true }) };
}

describeCoordinationContract('local (one process)', async () => makeLocal());

describe('local coordination', () => {
  test('one server per database file: a second lease is refused until the first is released', async () => {
    const { coordination, close } = makeLocal();
    try {
      const first = await coordination.instance.acquire();
      expect(first).toBeDefined();
      expect(await coordination.instance.acquire()).toBeUndefined();
      first!.release();
      const next = await coordination.instance.acquire();
      expect(next).toBeDefined();
      next!.release();
    } finally {
      close();
    }
  });

  test('the session store keeps at most its cap, dropping the oldest, and drops expired sessions', () => {
    const store = localSessionStore(3);
    const now = 1_000_000;
    store.set('expired', { csrfToken: 'c', expiresAt: now + 10, tokenHash: 'h' }, now);
    for (let i = 0; i < 5; i++) store.set(`s${i}`, { csrfToken: 'c', expiresAt: now + 60_000, tokenHash: 'h' }, now + 10);
    expect(['expired', 's0', 's1', 's2', 's3', 's4'].map((h) => store.get(h) !== undefined)).toEqual([false, false, false, true, true, true]);
  });
});

describe('memory stays bounded under address churn', () => {
  test('the failure throttle keeps at most maxTracked addresses, dropping the stalest', () => {
    const clock = new FakeClock();
    const throttle = failureThrottle(clock, { maxTracked: 100, freeFailures: 0 });
    for (let i = 0; i < 10_000; i++) throttle.fail(`127.0.${i >> 8}.${i & 255}`);
    expect(throttle.size).toBe(100);
    expect(throttle.wait('127.0.39.15')).toBeGreaterThan(0);
    expect(throttle.wait('127.0.0.1')).toBe(0);
  });

  test('one address failing never delays another', () => {
    const throttle = failureThrottle(new FakeClock(), { freeFailures: 2 });
    for (let i = 0; i < 50; i++) throttle.fail('198.51.100.7');
    expect(throttle.wait('198.51.100.7')).toBeGreaterThan(0);
    expect(throttle.wait('198.51.100.8')).toBe(0);
  });

  test('the rate limiter keeps at most maxKeys buckets', () => {
    const clock = new FakeClock();
    const limit = rateLimiter(1, clock, 50);
    for (let i = 0; i < 1000; i++) limit(`k${i}`);
    // A forgotten key starts with a full bucket again: 2 tokens.
    expect([limit('k0'), limit('k0'), limit('k0')]).toEqual([0, 0, 1]);
  });
});
