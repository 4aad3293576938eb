import { SQL } from 'bun';
import { clientOptions, type PostgresSettings } from '../../db/postgres/connection';
import type { Logger } from '../../lib/logger';
import type { Leadership } from '../coordination';

/**
 * The scheduler leader's advisory lock (session level). Another key than the migration lock's
 * (db/postgres/migrate.ts) and the instance lock's (db/postgres/instance-lock.ts).
 * 0x69736c65745f6c = "islet_l".
 */
export const LEADER_LOCK_KEY = 0x69736c65745f6cn;

export interface LeadershipTimings {
  /** How often a follower tries to take the lock. */
  retryMs: number;
  /** How often the leader checks that its session still holds the lock. */
  verifyMs: number;
  /** A try or check unanswered this long counts as a lost connection (a vanished network path). */
  answerMs: number;
}

/** The `application_name` of the leader lock's session: how PostgreSQL (and the instance list) tells which instance leads. */
export const leaderApplicationName = (instanceId: string) => `islet leader ${instanceId}`.slice(0, 63);

export const LEADERSHIP_TIMINGS: LeadershipTimings = { retryMs: 2_000, verifyMs: 1_000, answerMs: 3_000 };

/** Leadership on PostgreSQL; `current` is the cached answer, for the heartbeat and `/metrics`. */
export interface PgLeadership extends Leadership {
  /** The backend pid of the session holding the lock while this instance leads (tests, diagnosis). */
  backendPid(): number | undefined;
}

/**
 * One scheduler leader among the instances on a database: the one whose connection of its own
 * holds LEADER_LOCK_KEY. PostgreSQL frees the lock when that session ends, so when a leader dies
 * (even kill -9: the server sees the socket close) a follower takes it at its next try, ≤ retryMs.
 * A host that vanishes without closing its sockets is only noticed by TCP keepalive on the
 * server's side (`tcp_keepalives_*`, docs/postgresql.md); that instance itself stops leading after
 * one unanswered check (≤ verifyMs + answerMs), before the server frees the lock.
 *
 * `isLeader` answers from the state of the last try or check (the scheduler asks every 250 ms); the
 * first call starts the loop and waits for its first try, so only a process that runs a scheduler
 * ever takes the lock, and a lone one leads from its first tick. A lost
 * connection (PostgreSQL restart, network) makes it not leader at once, and it tries again.
 * @example const leadership = pgLeadership(settings, 'host-1-abc', logger); await leadership.isLeader(); … await leadership.release();
 */
export function pgLeadership(settings: PostgresSettings, instanceId: string, logger: Logger, timings = LEADERSHIP_TIMINGS): PgLeadership {
  let leader = false;
  let pid: number | undefined;
  let client: SQL | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let state: 'idle' | 'running' | 'released' = 'idle';
  let round: Promise<void> = Promise.resolve();
  /** An ex-leader waits two tries before trying again, so a follower (likely with a sound connection) takes over. */
  let holdOffUntil = 0;

  const become = (next: boolean, reason?: string) => {
    if (next === leader) return;
    leader = next;
    if (next) logger.info('became scheduler leader', { instance: instanceId });
    else {
      holdOffUntil = Date.now() + 2 * timings.retryMs;
      logger.warn('lost scheduler leadership', { instance: instanceId, reason });
    }
  };

  const open = () => {
    const opened = new SQL(settings.url, {
      ...clientOptions(settings, { max: 1, connectionTimeout: Math.ceil(timings.answerMs / 1000) }),
      // The lock lives as long as this connection: the pool must never close it on its own.
      idleTimeout: 0,
      maxLifetime: 0,
      // Lets an operator see in pg_stat_activity which instance leads.
      connection: { application_name: leaderApplicationName(instanceId) },
      onclose: (e) => {
        if (client === opened) drop(`connection closed: ${e?.message ?? 'closed'}`);
      },
    });
    return opened;
  };

  /** Forgets the session (its lock goes with it); the next round opens a new one. */
  const drop = (reason: string) => {
    const old = client;
    client = undefined;
    pid = undefined;
    become(false, reason);
    void old?.close({ timeout: 0 }).catch(() => {});
  };

  const tryOnce = async () => {
    if (!leader && Date.now() < holdOffUntil) return;
    const sql = (client ??= open());
    const [row] = leader
      ? await sql`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
                    AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = ${LEADER_LOCK_KEY}) AS held, pg_backend_pid() AS pid`
      : await sql`SELECT pg_try_advisory_lock(${LEADER_LOCK_KEY}) AS held, pg_backend_pid() AS pid`;
    if (client !== sql) return;
    pid = row.held === true ? Number(row.pid) : undefined;
    // Held false while leading: the session was replaced (the pool reconnected), so the lock is gone.
    become(row.held === true, 'the session no longer holds the lock');
  };

  const runRound = async () => {
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const unanswered = new Promise<'late'>((resolve) => (deadline = setTimeout(() => resolve('late'), timings.answerMs)));
    try {
      const outcome = await Promise.race([tryOnce().then(() => 'done' as const), unanswered]);
      if (outcome === 'late') drop(`no answer from PostgreSQL within ${timings.answerMs} ms`);
    } catch (e) {
      drop(e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(deadline);
    }
  };

  const loop = () => {
    if (state !== 'running') return;
    round = runRound().finally(() => {
      if (state === 'running') timer = setTimeout(loop, leader ? timings.verifyMs : timings.retryMs);
    });
  };

  return {
    isLeader() {
      if (state === 'idle') {
        state = 'running';
        loop();
        // The first ask waits for the first try (a lone instance leads from its first tick).
        return round.then(() => leader);
      }
      return Promise.resolve(leader);
    },
    current: () => leader,
    backendPid: () => pid,
    async release() {
      if (state === 'released') return;
      state = 'released';
      clearTimeout(timer);
      await round;
      const sql = client;
      client = undefined;
      if (leader && sql) await sql`SELECT pg_advisory_unlock(${LEADER_LOCK_KEY})`.catch(() => {});
      pid = undefined;
      if (leader) logger.info('gave up scheduler leadership', { instance: instanceId });
      leader = false;
      await sql?.close().catch(() => {});
    },
  };
}
