import { describe, expect, test } from 'bun:test';
import { DEFAULT_BACKOFF, retryDelay } from './backoff';

describe('retry backoff', () => {
  test('doubles its ceiling with each attempt and picks a random wait below it (full jitter)', () => {
    expect(retryDelay(1, undefined, () => 0.999999)).toBe(1999);
    expect(retryDelay(3, undefined, () => 0.5)).toBe(4000);
    expect(retryDelay(5, undefined, () => 0.25)).toBe(8000);
    expect(retryDelay(5, undefined, () => 0)).toBe(0);
  });

  test('never waits longer than the cap, however many attempts', () => {
    expect(retryDelay(30, undefined, () => 0.999999)).toBeLessThanOrEqual(DEFAULT_BACKOFF.capMs);
    expect(retryDelay(1000, undefined, () => 1)).toBe(DEFAULT_BACKOFF.capMs);
  });

  test("a provider's Retry-After is a lower bound", () => {
    expect(retryDelay(1, 120_000, () => 0.5)).toBe(120_000);
    expect(retryDelay(10, 1000, () => 0.5)).toBe(512_000);
  });
});
