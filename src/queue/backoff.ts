/** When to try again after a retryable outcome, and when to stop trying. */
export interface BackoffPolicy {
  /** Delay scale: the n-th retry waits up to baseMs × 2^n. */
  baseMs: number;
  /** No retry waits longer than this (unless the provider's Retry-After asks for more). */
  capMs: number;
  /** After this many attempts a delivery that still gets "retry" is failed. */
  maxAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 60 * 60 * 1000, maxAttempts: 10 };

/**
 * The wait before the next attempt, after `attempts` attempts have been made: exponential with
 * full jitter (a uniformly random wait up to baseMs × 2^attempts, capped), so that many
 * deliveries failing together do not come back together. A provider's `afterMs` (Retry-After) is a
 * lower bound.
 * @example retryDelay(3, undefined, () => 0.5) // 4000 with the default policy
 */
export function retryDelay(attempts: number, afterMs: number | undefined, random: () => number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempts, 40));
  const jittered = Math.floor(random() * ceiling);
  return Math.max(jittered, afterMs ?? 0);
}
