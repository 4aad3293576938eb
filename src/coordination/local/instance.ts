import { tryInstanceLock } from '../../db/instance-lock';
import type { InstanceOwnership } from '../coordination';

/**
 * One server per database file: `acquire` takes the file's instance lock (db/instance-lock.ts),
 * and whoever holds it owns every row in flight, so recovery resets them all at once.
 * @example const lease = localInstance('data/islet.db').acquire(); if (!lease) throw …; lease.release();
 */
export function localInstance(databasePath: string): InstanceOwnership {
  return {
    acquire: () => tryInstanceLock(databasePath),
    recover: (_what, reset) => reset(),
  };
}
