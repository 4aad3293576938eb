import type { Logger } from '../lib/logger';
import type { Coordination } from './coordination';
import type { PgCluster } from './postgres/cluster';
import { pgEndpointHealth } from './postgres/endpoint-health';
import { pgFailureThrottle } from './postgres/failure-throttle';
import { pgInstance, type PgInstance } from './postgres/instance';
import { pgInstances } from './postgres/instances';
import { lockPool, pgKeyedLocks } from './postgres/keyed-locks';
import { pgLeadership } from './postgres/leadership';
import { pgNotifications } from './postgres/notifications';
import { pgRateLimiter } from './postgres/rate-limiter';
import { pgSessionStore } from './postgres/sessions';
import { pgWakeUps } from './postgres/wake-ups';

/**
 * The coordination of several instances on one PostgreSQL database: claims under leases (the
 * instance registry), one scheduler leader, wake-ups over LISTEN/NOTIFY, keyed locks on advisory
 * locks, console sessions, failure throttles and endpoint health shared through tables, rate
 * limits as a per-instance share of the configured total.
 * @example const coordination = postgresCoordination(pgCluster(settings), { leaseMs: 10_000, logger });
 */
export function postgresCoordination(cluster: PgCluster, options: { leaseMs: number; logger: Logger; migrationsFolder?: string }): Coordination & { instance: PgInstance } {
  const notifications = pgNotifications(cluster, options.logger);
  const wakeUps = pgWakeUps(notifications);
  const locks = lockPool(cluster);
  const leadership = pgLeadership(cluster.settings, cluster.id, options.logger);
  /** Pieces with a listener or a timer, stopped by `close`. */
  const running: { stop(): Promise<void> }[] = [];
  const started = <T extends { stop(): Promise<void> }>(piece: T): T => {
    running.push(piece);
    return piece;
  };
  return {
    instance: pgInstance(cluster, { ...options, wakeUps, leading: leadership.current }),
    instances: pgInstances(cluster),
    wakeUps,
    leadership,
    keyedLocks: (name) => pgKeyedLocks(locks, name),
    sessions: () => pgSessionStore(cluster),
    endpointHealth: <R>() => started(pgEndpointHealth<R>(cluster)),
    rateLimiter: (_name, perSecond, clock) => pgRateLimiter(cluster, perSecond, clock),
    failureThrottle: (name, clock, options) => started(pgFailureThrottle(cluster, name, clock, options)),
    close: async () => {
      await Promise.all(running.splice(0).map((piece) => piece.stop().catch(() => {})));
      await leadership.release();
      await notifications.close();
      await locks.close();
      await cluster.close();
    },
  };
}
