import type { Logger } from '../lib/logger';
import type { Coordination } from './coordination';
import { localKeyedLocks } from './local/keyed-locks';
import { localWakeUps } from './local/wake-ups';
import type { PgCluster } from './postgres/cluster';
import { pgEndpointHealth } from './postgres/endpoint-health';
import { pgFailureThrottle } from './postgres/failure-throttle';
import { pgInstance, type PgInstance } from './postgres/instance';
import { pgLeadership } from './postgres/leadership';
import { pgRateLimiter } from './postgres/rate-limiter';
import { pgSessionStore } from './postgres/sessions';

/**
 * The coordination of several instances on one PostgreSQL database: claims under leases (the
 * instance registry), one scheduler leader, console sessions, failure throttles and endpoint
 * health shared through tables, rate limits as a per-instance share. The pieces still local
 * (wake-ups, keyed locks) hold per instance until their shared implementations replace them here.
 * @example const coordination = postgresCoordination(pgCluster(settings), { leaseMs: 10_000, logger });
 */
export function postgresCoordination(cluster: PgCluster, options: { leaseMs: number; logger: Logger; migrationsFolder?: string }): Coordination & { instance: PgInstance } {
  const wakeUps = localWakeUps();
  const leadership = pgLeadership(cluster);
  /** Pieces with a listener or a timer, stopped by `close`. */
  const running: { stop(): Promise<void> }[] = [];
  const started = <T extends { stop(): Promise<void> }>(piece: T): T => {
    running.push(piece);
    return piece;
  };
  return {
    instance: pgInstance(cluster, { ...options, wakeUps }),
    wakeUps,
    leadership,
    keyedLocks: () => localKeyedLocks(),
    sessions: () => pgSessionStore(cluster),
    endpointHealth: <R>() => started(pgEndpointHealth<R>(cluster)),
    rateLimiter: (_name, perSecond, clock) => pgRateLimiter(cluster, perSecond, clock),
    failureThrottle: (name, clock, options) => started(pgFailureThrottle(cluster, name, clock, options)),
    close: async () => {
      await Promise.all(running.splice(0).map((piece) => piece.stop().catch(() => {})));
      await leadership.stop();
      await cluster.close();
    },
  };
}
