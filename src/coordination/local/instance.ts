import { tryInstanceLock } from '../../db/instance-lock';
import type { PostgresSettings } from '../../db/postgres/connection';
import { tryPostgresInstanceLock } from '../../db/postgres/instance-lock';
import type { InstanceOwnership } from '../coordination';

/**
 * One server per database: `acquire` takes the file's instance lock (db/instance-lock.ts), or on
 * PostgreSQL the instance advisory lock (db/postgres/instance-lock.ts),
 * and whoever holds it owns every row in flight, so recovery resets them all at once.
 * @example const lease = await localInstance('data/islet.db').acquire(); if (!lease) throw …; lease.release();
 */
export function localInstance(databasePath: string, postgres?: PostgresSettings): InstanceOwnership {
  return {
    acquire: async () => (postgres ? tryPostgresInstanceLock(postgres) : tryInstanceLock(databasePath)),
    recover: (_what, reset) => reset(),
  };
}
