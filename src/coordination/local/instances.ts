import { hostname } from 'node:os';
import { VERSION } from '../../version';
import type { InstanceDirectory, Leadership } from '../coordination';

/**
 * The one serving process of a database (SQLite, or PostgreSQL before several instances): it
 * answers for itself, without a table.
 * @example const instances = localInstances(instance.id, alwaysLeader); await instances.live(); // [{ id: 'host-123-a1b2c3', … }]
 */
export function localInstances(id: string, leadership: Leadership, now: () => number = Date.now): InstanceDirectory {
  const host = hostname();
  const startedAt = now();
  return {
    live: async () => [{ id, host, version: VERSION, startedAt, lastSeen: now(), leader: leadership.current() }],
  };
}
