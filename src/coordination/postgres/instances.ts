import type { InstanceDirectory, InstanceInfo } from '../coordination';
import type { PgCluster } from './cluster';

/**
 * The live instances of a PostgreSQL database: rows of `cluster_instances` (written by each
 * instance's heartbeat) whose lease is ahead of the database's clock, so hosts whose clocks differ
 * agree. Read here, beside the other statements on the coordination's tables, not through the
 * store: SQLite has no such table, and its one process answers for itself (local/instances.ts).
 * @example const instances = pgInstances(cluster); await instances.live();
 */
export function pgInstances(cluster: Pick<PgCluster, 'id' | 'sql'>): InstanceDirectory {
  return {
    id: cluster.id,
    async live() {
      const rows: Record<keyof InstanceInfo, unknown>[] = await cluster.sql`
        SELECT id, host, version, started_at AS "startedAt", last_seen AS "lastSeen", leader
          FROM cluster_instances
         WHERE lease_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint
         ORDER BY started_at DESC, id`;
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
