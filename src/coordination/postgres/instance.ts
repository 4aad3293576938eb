import { migratePostgres } from '../../db/postgres/migrate';
import { postgresDialect } from '../../db/sql/dialect';
import type { Logger } from '../../lib/logger';
import { VERSION } from '../../version';
import type { InstanceLease, InstanceOwnership, RecoveredWork, WakeUps } from '../coordination';
import type { PgCluster } from './cluster';
import { preClusterGuard } from './pre-cluster-guard';

export interface PgInstanceOptions {
  /** How long a lease lasts without a heartbeat: `[cluster] lease_seconds`. */
  leaseMs: number;
  logger: Logger;
  /** Told 'deliveries-queued' when a takeover put deliveries back. */
  wakeUps: WakeUps;
  /** The migrations applied before registering (tests); else the shipped ones. */
  migrationsFolder?: string;
  /** Whether this instance leads the scheduler now (written with each heartbeat: `leader`). */
  leading?: () => boolean;
}

export interface PgInstance extends InstanceOwnership {
  /** One heartbeat now (the lease's timer runs one every lease/3); never rejects. */
  heartbeat(): Promise<void>;
}

/** PostgreSQL's clock: leases mean the same to instances whose hosts' clocks differ. */
const NOW = postgresDialect.nowMs;

/**
 * The instance registry on PostgreSQL: `acquire` registers this process in `cluster_instances` with
 * a lease a heartbeat renews every lease/3, by PostgreSQL's clock. Each heartbeat also counts the
 * live instances (cluster.liveInstances) and takes over from instances whose lease ran out: it runs
 * again every reset `recover` was given (each resets only claims of instances without a live lease,
 * src/queue/claims.ts), then deletes their rows. So work a killed instance had claimed is sent again within
 * about lease + lease/3, never work of an instance that is alive.
 * @example const lease = await pgInstance(cluster, { leaseMs: 10_000, logger, wakeUps }).acquire();
 */
export function pgInstance(cluster: PgCluster, options: PgInstanceOptions): PgInstance {
  const { leaseMs, logger } = options;
  // The cluster's pool at each use (it opens lazily, and again after a close).
  const sql = { unsafe: (text: string, values?: unknown[]) => cluster.sql.unsafe(text, values as never[]) };
  const resets = new Map<RecoveredWork, () => Promise<number> | number>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let beating: Promise<void> | undefined;
  let failingSince: number | undefined;
  const guard = preClusterGuard(cluster);
  let olderServing = false;

  const register = () =>
    sql.unsafe(
      `INSERT INTO cluster_instances (id, host, pid, version, started_at, last_seen, lease_until)
       VALUES ($1, $2, $3, $4, ${NOW}, ${NOW}, ${NOW} + $5)
       ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, lease_until = excluded.lease_until`,
      [cluster.id, cluster.host, process.pid, VERSION, leaseMs],
    );

  const liveCount = async () =>
    Number(((await sql.unsafe(`SELECT count(*)::int AS n FROM cluster_instances WHERE lease_until > ${NOW}`)) as { n: number }[])[0]!.n);

  async function takeOver(dead: string[]): Promise<void> {
    const putBack: Partial<Record<RecoveredWork, number>> = {};
    for (const [what, reset] of resets) putBack[what] = await reset();
    await sql.unsafe(`DELETE FROM cluster_instances WHERE id = ANY($1::text[]) AND lease_until <= ${NOW}`, [dead]);
    if ((putBack.deliveries ?? 0) > 0) options.wakeUps.notify('deliveries-queued');
    logger.warn('took over the work of instances whose lease ran out', { instances: dead, ...putBack });
  }

  async function beat(): Promise<void> {
    const renewed = (await sql.unsafe(
      `UPDATE cluster_instances SET last_seen = ${NOW}, lease_until = ${NOW} + $2, leader = $3 WHERE id = $1 AND lease_until > ${NOW} RETURNING id`,
      [cluster.id, leaseMs, options.leading?.() ?? false],
    )) as unknown[];
    if (renewed.length === 0) {
      // Paused or cut off longer than the lease: others may have sent this instance's claims again.
      logger.warn("this instance's lease had run out (PostgreSQL unreachable or the process paused): its claims may have been taken over; registering again", {
        instance: cluster.id,
      });
      await register();
    }
    cluster.setLiveInstances(await liveCount());
    const dead = ((await sql.unsafe(`SELECT id FROM cluster_instances WHERE lease_until <= ${NOW}`)) as { id: string }[]).map((r) => r.id);
    // Only an instance that recovers work takes over (one not serving yet leaves it to those that
    // do), and not in a beat that found its own lease run out: after an outage of PostgreSQL the
    // others' leases ran out too, and they register again at their next beat.
    if (dead.length > 0 && resets.size > 0 && renewed.length > 0) await takeOver(dead);
    const olderNow = !(await guard.hold());
    if (olderNow && !olderServing)
      logger.error('an Islet server of an earlier version (one instance per database) serves this database too: it sends what this one sends; stop it');
    olderServing = olderNow;
  }

  function heartbeat(): Promise<void> {
    beating ??= beat()
      .then(
        () => {
          if (failingSince === undefined) return;
          logger.info('cluster heartbeat works again', { failedSeconds: Math.round((Date.now() - failingSince) / 1000) });
          failingSince = undefined;
        },
        (e) => {
          if (failingSince !== undefined) return;
          failingSince = Date.now();
          logger.error('cluster heartbeat fails: this lease runs out unless PostgreSQL answers again; retrying', {
            error: e instanceof Error ? e.message : String(e),
            code: (e as { errno?: string; code?: string }).errno ?? (e as { code?: string }).code,
          });
        },
      )
      .finally(() => (beating = undefined));
    return beating;
  }

  return {
    id: cluster.id,
    heartbeat,
    async acquire(): Promise<InstanceLease> {
      if (!(await guard.hold())) {
        await guard.close();
        throw new Error(
          'an Islet server of an earlier version (one instance per database) is serving this PostgreSQL database: stop it first: upgrading to several instances needs one stop',
        );
      }
      // The registry's table comes with the migrations (applied under their lock; bootstrap's run then finds nothing to do).
      await migratePostgres(cluster.settings, options.migrationsFolder);
      await register();
      cluster.setLiveInstances(await liveCount());
      timer = setInterval(() => void heartbeat(), Math.max(100, Math.floor(leaseMs / 3)));
      timer.unref?.();
      return {
        release: async () => {
          clearInterval(timer);
          timer = undefined;
          await beating;
          await sql.unsafe('DELETE FROM cluster_instances WHERE id = $1', [cluster.id]);
          await guard.close();
        },
      };
    },
    async recover(what, reset) {
      // Held deliveries wait for an endpoint whose health is shared by the live instances: put back
      // only when none is live besides this one, and never at a takeover (the holds are not the dead
      // instance's). Endpoint health is shared (endpoint-health.ts): a dead instance's holds are
      // released with every other's once any instance's probe of the endpoint is answered.
      if (what === 'endpoint holds') return (await liveCount()) > 1 ? 0 : reset();
      // A throttled send's schedule is kept by any live instance: spread again only after a stop of all.
      if (what === 'throttled sends') return (await liveCount()) > 1 ? 0 : reset();
      resets.set(what, reset);
      return reset();
    },
  };
}
