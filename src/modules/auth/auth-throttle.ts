import type { Clock } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import { failureThrottle, type ThrottleOptions } from '../../lib/failure-throttle';

/**
 * A failure throttle for one kind of secret, answering 429 with Retry-After while an address
 * must wait. Checked before the secret is compared, so guesses during a wait learn nothing.
 * @example const t = authThrottle(clock, 'wrong tokens'); t.check(ip); if (!ok) { t.fail(ip); throw … } t.succeed(ip);
 */
export function authThrottle(clock: Clock, what: string, options?: ThrottleOptions) {
  const throttle = failureThrottle(clock, options);
  return {
    check(address: string): void {
      const wait = throttle.wait(address);
      if (wait > 0) throw new HttpError(429, `too many ${what}; try again in ${wait} s`, { 'retry-after': String(wait) });
    },
    fail: throttle.fail,
    succeed: throttle.succeed,
    get size() {
      return throttle.size;
    },
  };
}

export type AuthThrottle = ReturnType<typeof authThrottle>;
