import type { Logger } from '../lib/logger';
import type { Coordination } from './coordination';
import { localEndpointHealth } from './local/endpoint-health';
import { failureThrottle } from './local/failure-throttle';
import { localKeyedLocks } from './local/keyed-locks';
import { rateLimiter } from './local/rate-limiter';
import { localSessionStore } from './local/sessions';
import { localWakeUps } from './local/wake-ups';
import type { PgCluster } from './postgres/cluster';
import { pgInstance, type PgInstance } from './postgres/instance';
import { pgLeadership } from './postgres/leadership';

/**
 * The coordination of several instances on one PostgreSQL database: claims under leases (the
 * instance registry) and one scheduler leader. The pieces still local (wake-ups, keyed locks,
 * sessions, endpoint health, rate limits, throttles) hold per instance until their shared
 * implementations replace them here.
 * @example const coordination = postgresCoordination(pgCluster(settings), { leaseMs: 10_000, logger });
 */
export function postgresCoordination(cluster: PgCluster, options: { leaseMs: number; logger: Logger; migrationsFolder?: string }): Coordination & { instance: PgInstance } {
  const wakeUps = localWakeUps();
  const leadership = pgLeadership(cluster);
  return {
    instance: pgInstance(cluster, { ...options, wakeUps }),
    wakeUps,
    leadership,
    keyedLocks: () => localKeyedLocks(),
    sessions: () => localSessionStore(),
    endpointHealth: localEndpointHealth,
    rateLimiter: (_name, perSecond, clock) => rateLimiter(perSecond, clock),
    failureThrottle: (_name, clock, options) => failureThrottle(clock, options),
    close: async () => {
      await leadership.stop();
      await cluster.close();
    },
  };
}
