import type { Logger } from '../lib/logger';
import type { Coordination } from './coordination';
import { localEndpointHealth } from './local/endpoint-health';
import { failureThrottle } from './local/failure-throttle';
import { rateLimiter } from './local/rate-limiter';
import { localSessionStore } from './local/sessions';
import type { PgCluster } from './postgres/cluster';
import { pgInstance, type PgInstance } from './postgres/instance';
import { lockPool, pgKeyedLocks } from './postgres/keyed-locks';
import { pgLeadership } from './postgres/leadership';
import { pgNotifications } from './postgres/notifications';
import { pgWakeUps } from './postgres/wake-ups';

/**
 * The coordination of several instances on one PostgreSQL database: claims under leases (the
 * instance registry), one scheduler leader, wake-ups over LISTEN/NOTIFY and keyed locks on advisory
 * locks. The pieces still local (sessions, endpoint health, rate limits, throttles) hold per
 * instance until their shared implementations replace them here.
 * @example const coordination = postgresCoordination(pgCluster(settings), { leaseMs: 10_000, logger });
 */
export function postgresCoordination(cluster: PgCluster, options: { leaseMs: number; logger: Logger; migrationsFolder?: string }): Coordination & { instance: PgInstance } {
  const notifications = pgNotifications(cluster, options.logger);
  const wakeUps = pgWakeUps(notifications);
  const locks = lockPool(cluster);
  const leadership = pgLeadership(cluster);
  return {
    instance: pgInstance(cluster, { ...options, wakeUps }),
    wakeUps,
    leadership,
    keyedLocks: (name) => pgKeyedLocks(locks, name),
    sessions: () => localSessionStore(),
    endpointHealth: localEndpointHealth,
    rateLimiter: (_name, perSecond, clock) => rateLimiter(perSecond, clock),
    failureThrottle: (_name, clock, options) => failureThrottle(clock, options),
    close: async () => {
      await leadership.stop();
      await notifications.close();
      await locks.close();
      await cluster.close();
    },
  };
}
