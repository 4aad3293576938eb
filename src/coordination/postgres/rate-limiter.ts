import type { Clock } from '../../lib/clock';
import type { RateLimiter } from '../coordination';
import { rateLimiter } from '../local/rate-limiter';
import type { PgCluster } from './cluster';

/**
 * The rate limit of several instances on one PostgreSQL, as a per-instance share (the issue allows
 * a documented share instead of a shared counter): each instance enforces `perSecond / live
 * instances` (the registry's heartbeat keeps the count), so N instances behind a balancer that
 * spreads requests evenly (round-robin) enforce the configured total, with no statement per
 * request. The trade-off: behind an uneven balancer (sticky sessions, one client pinned to one
 * instance) a client gets only its instance's share, less than the total; never more. While an
 * instance is starting or dying the count lags by a heartbeat, so the total is briefly off by one
 * share.
 * @example const limit = pgRateLimiter(cluster, 100, clock); const wait = limit(appId); // 0 = go
 */
export function pgRateLimiter(cluster: PgCluster, perSecond: number, clock: Clock): RateLimiter {
  if (perSecond <= 0) return () => 0;
  return rateLimiter(() => perSecond / cluster.liveInstances(), clock);
}
