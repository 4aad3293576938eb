import type { Coordination } from './coordination';
import { localEndpointHealth } from './local/endpoint-health';
import { failureThrottle } from './local/failure-throttle';
import { localInstance } from './local/instance';
import { localInstances } from './local/instances';
import { alwaysLeader } from './local/leadership';
import { localKeyedLocks } from './local/keyed-locks';
import { rateLimiter } from './local/rate-limiter';
import { localSessionStore } from './local/sessions';
import { localWakeUps } from './local/wake-ups';

/**
 * The coordination of a SQLite file: one process serves the database, so every piece of shared state lives in
 * its memory (lost at a restart, which each user of it allows for) and it is always the leader.
 * @example const coordination = localCoordination({ databasePath: config.database.path });
 */
export function localCoordination(options: { databasePath: string }): Coordination {
  const instance = localInstance(options.databasePath);
  return {
    instance,
    instances: localInstances(instance.id, alwaysLeader),
    wakeUps: localWakeUps(),
    leadership: alwaysLeader,
    keyedLocks: () => localKeyedLocks(),
    sessions: () => localSessionStore(),
    endpointHealth: localEndpointHealth,
    rateLimiter: (_name, perSecond, clock) => rateLimiter(perSecond, clock),
    failureThrottle: (_name, clock, options) => failureThrottle(clock, options),
    close: async () => {},
  };
}
