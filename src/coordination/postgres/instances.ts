import type { InstanceDirectory, InstanceInfo } from '../coordination';
import type { PgCluster } from './cluster';
import { LEADER_LOCK_KEY, leaderApplicationName } from './leadership';

/**
 * The live instances of a PostgreSQL database: rows of `cluster_instances` (written by each
 * instance's heartbeat) whose lease is ahead of the database's clock, so hosts whose clocks differ
 * agree. `leader` is the holder of the scheduler's lock now, by the name its session carries
 * (leadership.ts), not the heartbeat's last word, so the list never shows two leaders. Read here,
 * beside the other statements on the coordination's tables, not through the store: SQLite has no
 * such table, and its one process answers for itself (local/instances.ts).
 * @example const instances = pgInstances(cluster); await instances.live();
 */
export function pgInstances(cluster: Pick<PgCluster, 'sql'>): InstanceDirectory {
  return {
    async live() {
      const rows: Record<keyof InstanceInfo, unknown>[] = await cluster.sql`
        SELECT c.id, c.host, c.version, c.started_at AS "startedAt", c.last_seen AS "lastSeen",
               EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                          AND ((l.classid::bigint << 32) | l.objid::bigint) = ${LEADER_LOCK_KEY}
                          AND a.application_name = left(${leaderApplicationName('')} || c.id, 63)) AS leader
          FROM cluster_instances c
         WHERE c.lease_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
         ORDER BY c.started_at DESC, c.id`;
      return rows.map((r) => ({
        id: String(r.id),
        host: String(r.host),
        version: String(r.version),
        // int8 comes back as a string (clientOptions: bigint false).
        startedAt: Number(r.startedAt),
        lastSeen: Number(r.lastSeen),
        leader: r.leader === true,
      }));
    },
  };
}
