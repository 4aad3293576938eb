import { SQL } from 'bun';
import { createHash } from 'node:crypto';
import { clientOptions } from '../../db/postgres/connection';
import type { KeyedLocks } from '../coordination';
import { localKeyedLocks } from '../local/keyed-locks';
import type { PgCluster } from './cluster';

/** The advisory lock key (int8) of `key` under `name`: the first 8 bytes of a SHA-256, signed. */
export function advisoryKey(name: string, key: string): bigint {
  return createHash('sha256').update(`${name}\0${key}`).digest().readBigInt64BE(0);
}

/**
 * Connections that hold keyed locks, one per job running: a pool of their own, since a job holds
 * its connection while it reads and writes through the store's pool. Idle ones close again.
 */
export interface LockPool {
  readonly sql: SQL;
  close(): Promise<void>;
}

/** The lock pool of this instance: at most `[database] pool_size` jobs hold a lock at once. */
export function lockPool(cluster: PgCluster): LockPool {
  let sql: SQL | undefined;
  return {
    get sql() {
      sql ??= new SQL(cluster.settings.url, { ...clientOptions(cluster.settings), idleTimeout: 30 });
      return sql;
    },
    close: async () => {
      await sql?.close();
      sql = undefined;
    },
  };
}

/**
 * Per-key locks across instances: a job runs inside a transaction holding
 * `pg_advisory_xact_lock(hash of name and key)`, so the jobs of one key never overlap on any
 * instance, and the lock goes with the transaction's end: commit after the job, rollback when it
 * failed, or the connection's end when the instance dies. In front, this process's own chain per
 * key (local/keyed-locks.ts): one process waits for a key with at most one connection.
 * @example const locks = pgKeyedLocks(pool, 'activity-streams'); await locks.run(`${appId}\n${key}`, () => put());
 */
export function pgKeyedLocks(pool: LockPool, name: string): KeyedLocks {
  const local = localKeyedLocks();
  return {
    run(key, job) {
      return local.run(key, () =>
        pool.sql.begin(async (tx) => {
          await tx`SELECT pg_advisory_xact_lock(${advisoryKey(name, key).toString()}::int8)`;
          return job();
        }),
      );
    },
  };
}
