import { SQL } from 'bun';
import { clientOptions } from '../../db/postgres/connection';
import { INSTANCE_LOCK_KEY } from '../../db/postgres/instance-lock';
import type { PgCluster } from './cluster';

/**
 * Keeps servers of a pre-cluster version (one instance per database, db/postgres/instance-lock.ts)
 * off a database that instances of this version serve, and this version off one they serve: each
 * instance holds the instance lock *shared* on a connection of its own, which instances of this
 * version share and the older one (taking it exclusively) cannot. After a lost connection (a
 * PostgreSQL restart) the lock is gone with it; `hold` at each heartbeat takes it again.
 */
export function preClusterGuard(cluster: PgCluster) {
  let client: SQL | undefined;
  /** The server process (backend) the lock is held on: another one means the connection was lost. */
  let heldOn: number | undefined;
  return {
    /** True while the lock is held (taken again if it was lost); false when an older server holds it. */
    async hold(): Promise<boolean> {
      client ??= new SQL(cluster.settings.url, { ...clientOptions(cluster.settings, { max: 1 }), idleTimeout: 0 });
      const { pid } = ((await client`SELECT pg_backend_pid() AS pid`) as { pid: number }[])[0]!;
      if (pid === heldOn) return true;
      const { got } = ((await client`SELECT pg_try_advisory_lock_shared(${INSTANCE_LOCK_KEY}) AS got`) as { got: boolean }[])[0]!;
      heldOn = got ? pid : undefined;
      return got;
    },
    async close(): Promise<void> {
      heldOn = undefined;
      await client?.close();
      client = undefined;
    },
  };
}
