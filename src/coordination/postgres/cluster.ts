import { SQL } from 'bun';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { clientOptions, type PostgresSettings } from '../../db/postgres/connection';

/**
 * What every piece of the PostgreSQL coordination shares (one per process): this instance's id, a
 * small pool of its own (apart from the store's, so coordination never waits behind requests), and
 * what the instance registry knows of the others. The pieces live beside this file, one per
 * concern of ../coordination.ts; ../postgres.ts puts them together.
 */
export interface PgCluster {
  /** This process's instance id: `<host>-<pid>-<random>`, new at every start (never reused). */
  readonly id: string;
  readonly host: string;
  readonly settings: PostgresSettings;
  /** The coordination's pool (a few connections; nothing connects before the first query). */
  readonly sql: SQL;
  /** Live instances by the registry's last look (at least 1: this one); shares per instance divide by it. */
  liveInstances(): number;
  /** Tells the cluster how many instances are live (the registry's heartbeat calls it). */
  setLiveInstances(n: number): void;
  /** Closes the pool (after every piece stopped). */
  close(): Promise<void>;
}

/** Connections of the coordination's own pool: heartbeat, notifications sent (the leader lock, the listener and keyed locks have connections of their own: leadership.ts, notifications.ts, keyed-locks.ts). */
export const CLUSTER_POOL_SIZE = 4;

/**
 * The cluster handle of this process.
 * @example const cluster = pgCluster({ url, poolSize: 10 }); … await cluster.close();
 */
export function pgCluster(settings: PostgresSettings): PgCluster {
  const host = hostname();
  let live = 1;
  let sql: SQL | undefined;
  return {
    id: `${host}-${process.pid}-${randomBytes(3).toString('hex')}`,
    host,
    settings,
    get sql() {
      sql ??= new SQL(settings.url, clientOptions(settings, { max: CLUSTER_POOL_SIZE }));
      return sql;
    },
    liveInstances: () => live,
    setLiveInstances: (n) => void (live = Math.max(1, n)),
    close: async () => {
      await sql?.close();
      sql = undefined;
    },
  };
}
