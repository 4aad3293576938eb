import type { ReservedSQL } from 'bun';
import type { Leadership } from '../coordination';
import type { PgCluster } from './cluster';

/** The scheduler's advisory lock (session level). 0x69736c65745f6c = "islet_l". */
export const LEADER_LOCK_KEY = 0x69736c65745f6cn;

/**
 * Scheduler leadership on PostgreSQL: the leader holds a session advisory lock on a connection
 * reserved for it, which the server gives up when that connection ends (the process died), so at
 * most one instance runs the scheduler. Minimal: the `leader` work finishes this file.
 */
export function pgLeadership(cluster: PgCluster): Leadership & { stop(): Promise<void> } {
  let held: ReservedSQL | undefined;
  let leader = false;
  return {
    async isLeader() {
      try {
        held ??= await cluster.sql.reserve();
        if (leader) await held.unsafe('SELECT 1');
        else leader = ((await held.unsafe('SELECT pg_try_advisory_lock($1) AS got', [LEADER_LOCK_KEY])) as { got: boolean }[])[0]!.got;
        return leader;
      } catch {
        // The connection, and the lock with it, is gone: try again at the next round.
        leader = false;
        const lost = held;
        held = undefined;
        await lost?.close().catch(() => {});
        return false;
      }
    },
    async stop() {
      leader = false;
      await held?.close().catch(() => {});
      held = undefined;
    },
  };
}
