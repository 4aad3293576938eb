import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { tryInstanceLock } from '../../db/instance-lock';
import type { InstanceOwnership } from '../coordination';

/**
 * One server per SQLite file: `acquire` takes the file's instance lock (db/instance-lock.ts), and
 * whoever holds it owns every row in flight, so recovery resets them all at once.
 * @example const lease = await localInstance('data/islet.db').acquire(); if (!lease) throw …; lease.release();
 */
export function localInstance(databasePath: string): InstanceOwnership {
  return {
    id: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    acquire: async () => tryInstanceLock(databasePath),
    recover: async (_what, reset) => reset(),
  };
}
