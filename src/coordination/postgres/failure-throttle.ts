import { all, one, run } from '../../db/postgres/query';
import type { Clock } from '../../lib/clock';
import type { FailureThrottle, ThrottleOptions } from '../coordination';
import type { PgCluster } from './cluster';

/** Where instances tell each other an address's record changed (payload: a Notice as JSON). */
export const AUTH_FAILURES_CHANNEL = 'islet_auth_failures';

interface FailureRecord {
  failures: number;
  lastAt: number;
  lockedUntil: number;
}

/** What a `fail` or `succeed` of one instance tells the others; `record` null = cleared. */
interface Notice {
  from: string;
  name: string;
  address: string;
  record: FailureRecord | null;
}

const RECORD_NUMBERS = ['failures', 'lastAt', 'lockedUntil'] as const;
const PRUNE_EVERY_MS = 60_000;

/**
 * The failure throttle of every instance on one PostgreSQL (FailureThrottle in ../coordination.ts):
 * failures count in `auth_failures`, one row per throttle name and address, with the same doubling
 * rules as ../local/failure-throttle.ts computed in the row's UPSERT, so a guesser spreading attempts
 * over instances waits as long as one hitting a single instance. `wait` (asked on every
 * authenticated request) reads a local copy, fed by the rows this instance's `fail` answers and by
 * the other instances' notices on AUTH_FAILURES_CHANNEL (loaded whole at start and after the
 * listener reconnects). Times come from `clock` (the hosts' clocks, kept in step by NTP). The copy
 * holds at most `maxTracked` addresses; rows older than the window are deleted at most once a minute.
 * @example const t = pgFailureThrottle(cluster, 'admin-token', clock); const { ready, stop } = t; await ready;
 */
export function pgFailureThrottle(cluster: PgCluster, name: string, clock: Clock, options: ThrottleOptions = {}): FailureThrottle & { ready: Promise<void>; stop(): Promise<void> } {
  const { freeFailures = 5, baseLockMs = 1000, maxLockMs = 15 * 60_000, windowMs = 60 * 60_000, maxTracked = 10_000 } = options;
  // Insertion order = staleness order, as in the local throttle.
  const records = new Map<string, FailureRecord>();
  let prunedAt = 0;

  const remember = (address: string, record: FailureRecord | null) => {
    records.delete(address);
    if (!record) return;
    records.set(address, record);
    while (records.size > maxTracked) records.delete(records.keys().next().value!);
  };

  const current = (address: string, now: number) => {
    const record = records.get(address);
    if (record && now - record.lastAt > windowMs) {
      records.delete(address);
      return undefined;
    }
    return record;
  };

  const notify = (address: string, record: FailureRecord | null) =>
    run(cluster.sql, 'SELECT pg_notify($1, $2)', [AUTH_FAILURES_CHANNEL, JSON.stringify({ from: cluster.id, name, address, record } satisfies Notice)]);

  const load = async () => {
    const rows = await all<FailureRecord & { address: string }>(
      cluster.sql,
      `SELECT address, failures, last_at AS "lastAt", locked_until AS "lockedUntil" FROM auth_failures
       WHERE name = $1 AND last_at >= $2 ORDER BY last_at DESC LIMIT $3`,
      [name, clock.now() - windowMs, maxTracked],
      RECORD_NUMBERS,
    );
    records.clear();
    for (const { address, ...record } of rows.reverse()) remember(address, record);
  };

  const onNotice = (payload: string) => {
    const notice = JSON.parse(payload) as Notice;
    if (notice.from !== cluster.id && notice.name === name) remember(notice.address, notice.record);
  };

  const listening = cluster.sql.listen(AUTH_FAILURES_CHANNEL, onNotice, () => void load().catch(() => {}));
  const ready = listening.then(load);
  // Until loaded, `wait` knows only this instance's failures; a failed load is retried at the next reconnect.
  ready.catch(() => {});

  return {
    ready,
    stop: async () => (await listening).unlisten(),

    wait(address) {
      const now = clock.now();
      const record = current(address, now);
      return record && record.lockedUntil > now ? Math.ceil((record.lockedUntil - now) / 1000) : 0;
    },

    async fail(address) {
      const now = clock.now();
      // `n` is the failure count after this one: 1 when the row is new or its window has passed.
      const record = await one<FailureRecord>(
        cluster.sql,
        `WITH r AS (
           INSERT INTO auth_failures AS f (name, address, failures, last_at, locked_until)
           VALUES ($1, $2, 1, $3::bigint, CASE WHEN 1 > $4::int THEN $3::bigint + LEAST($5::float8, $6::float8)::bigint ELSE 0 END)
           ON CONFLICT (name, address) DO UPDATE SET
             failures = CASE WHEN $3::bigint - f.last_at > $7::bigint THEN 1 ELSE f.failures + 1 END,
             last_at = $3::bigint,
             locked_until = CASE
               WHEN (CASE WHEN $3::bigint - f.last_at > $7::bigint THEN 1 ELSE f.failures + 1 END) > $4::int
                 THEN $3::bigint + LEAST($6::float8, $5::float8 * power(2, LEAST((CASE WHEN $3::bigint - f.last_at > $7::bigint THEN 1 ELSE f.failures + 1 END) - $4::int - 1, 60)))::bigint
               WHEN $3::bigint - f.last_at > $7::bigint THEN 0
               ELSE f.locked_until END
           RETURNING failures, last_at, locked_until)
         SELECT failures, last_at AS "lastAt", locked_until AS "lockedUntil",
           pg_notify($8, json_build_object('from', $9::text, 'name', $1::text, 'address', $2::text,
             'record', json_build_object('failures', failures, 'lastAt', last_at, 'lockedUntil', locked_until))::text)
         FROM r`,
        [name, address, now, freeFailures, baseLockMs, maxLockMs, windowMs, AUTH_FAILURES_CHANNEL, cluster.id],
        RECORD_NUMBERS,
      );
      remember(address, record ?? null);
      if (now - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now;
        await run(cluster.sql, 'DELETE FROM auth_failures WHERE name = $1 AND last_at < $2', [name, now - windowMs]);
      }
    },

    async succeed(address) {
      // Asked at every authenticated request: only an address known to have failed costs a statement.
      if (!records.has(address)) return;
      records.delete(address);
      await run(cluster.sql, 'DELETE FROM auth_failures WHERE name = $1 AND address = $2', [name, address]);
      await notify(address, null);
    },

    get size() {
      return records.size;
    },
  };
}
