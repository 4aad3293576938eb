import type { FailureThrottle } from '../../coordination/coordination';
import { HttpError } from '../../lib/errors';

/**
 * A failure throttle (the coordination's) for one kind of secret, answering 429 with Retry-After
 * while an address must wait. Checked before the secret is compared, so guesses during a wait
 * learn nothing.
 * @example const t = authThrottle(ctx.coordination.failureThrottle('admin-token', clock), 'wrong tokens'); t.check(ip); if (!ok) { await t.fail(ip); throw … } await t.succeed(ip);
 */
export function authThrottle(throttle: FailureThrottle, what: string) {
  return {
    check(address: string): void {
      const wait = throttle.wait(address);
      if (wait > 0) throw new HttpError(429, `too many ${what}; try again in ${wait} s`, { 'retry-after': String(wait) });
    },
    fail: async (address: string): Promise<void> => {
      await throttle.fail(address);
    },
    succeed: async (address: string): Promise<void> => {
      await throttle.succeed(address);
    },
    get size() {
      return throttle.size;
    },
  };
}

export type AuthThrottle = ReturnType<typeof authThrottle>;
