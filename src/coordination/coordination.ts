import type { Clock } from '../lib/clock';

/**
 * State that is correct only while one process serves a database, behind one interface per
 * concern. `local.ts` is today's in-process implementation; a multi-instance one (several servers
 * on one PostgreSQL) is a sibling chosen in `choose.ts`. Each interface says in its first JSDoc
 * line what that implementation must guarantee; `src/test-support/coordination-contract.ts` holds the behaviour
 * every implementation must pass.
 *
 * Rate limits, throttle waits and endpoint health answer synchronously: they are asked on every
 * request and every send and must stay cheap, so a shared implementation keeps a local copy it
 * refreshes. Console sessions (asked only by console requests), a throttle's writes and taking a
 * down endpoint's probe may answer with a Promise, which their callers await: a session made on
 * one instance is then valid on every other by the time its cookie is sent.
 *
 * Not here, because no process state is involved:
 * - Webhook deliveries need no wake-up: the scheduler's `webhooks` job (leader only) finds them
 *   by polling the database every second.
 * - "Read in this write transaction, so it is the latest" is a property of the store's write
 *   (the guarantee "latest read in a write" at the end of this file), not of any in-memory state.
 */
export interface Coordination {
  instance: InstanceOwnership;
  /** The live instances of the database (`GET /api/admin/instances`). */
  instances: InstanceDirectory;
  wakeUps: WakeUps;
  leadership: Leadership;
  /** Per-key locks of one use; `name` keeps the keys of different uses apart in a shared store. */
  keyedLocks(name: string): KeyedLocks;
  /** The store of console sessions of one application. */
  sessions(): SessionStore;
  /** The state of provider endpoint health of one context (modules/delivery/endpoint-health/endpoint-health.ts). */
  endpointHealth<R>(): EndpointHealthState<R>;
  /** A token-bucket rate limit per key; `name` tells limits apart in a shared store. */
  rateLimiter(name: string, perSecond: number, clock: Clock): RateLimiter;
  /** Failures per client address that make guessing a secret slow; `name` tells throttles apart. */
  failureThrottle(name: string, clock: Clock, options?: ThrottleOptions): FailureThrottle;
  /** Stops every piece (heartbeats, held connections) once the lease is released; nothing is used after it. */
  close(): Promise<void>;
}

/**
 * Multi-instance: every live instance holds a lease that ends when it dies, and recovery puts back
 * only work claimed under an ended lease (never a live instance's), also for instances that die
 * later (the repositories of such a database scope their resets to those claims).
 */
export interface InstanceOwnership {
  /** This process's instance id (`<host>-<pid>-<random>`, new at every start): the owner of its claims, the `islet_instance` label of its metrics. */
  readonly id: string;
  /**
   * Takes this process's right to serve, held until `release` (or the process's end, however it
   * ends). Undefined when it may not serve now. Local: the exclusive lock on `<database>.lock`, so
   * a second server on the same file is refused; on PostgreSQL, a lease in `cluster_instances`
   * renewed by a heartbeat (postgres/instance.ts), so several instances serve side by side.
   */
  acquire(): Promise<InstanceLease | undefined>;
  /**
   * Start-up recovery: runs `reset` (a repository's "put back what was in flight": deliveries and
   * webhook deliveries being sent, deliveries held for a down endpoint, running Idempotency-Keys)
   * and answers what it answered (how many it put back). Local: at once, since the owner of the
   * file knows every row in flight was left by a stopped process. PostgreSQL: at once (the resets
   * touch only claims of dead instances), and again whenever another instance's lease runs out.
   * `what` names the work.
   */
  recover(what: RecoveredWork, reset: () => Promise<number> | number): Promise<number>;
}

/** One serving instance as the registry saw it; times in milliseconds since the epoch. */
export interface InstanceInfo {
  id: string;
  host: string;
  version: string;
  startedAt: number;
  /** Its last heartbeat (local: now). */
  lastSeen: number;
  /** Whether it led the scheduler at its last heartbeat. */
  leader: boolean;
}

/**
 * Multi-instance: every instance whose lease has not lapsed (PostgreSQL: `cluster_instances`,
 * written by each instance's heartbeat), as of the last heartbeats.
 */
export interface InstanceDirectory {
  /** The live instances, newest first (then by id). Local: this process alone. */
  live(): Promise<InstanceInfo[]>;
}

export type RecoveredWork = 'deliveries' | 'endpoint holds' | 'webhook deliveries' | 'idempotency keys' | 'throttled sends';

export interface InstanceLease {
  /** Gives the right to serve back (PostgreSQL: ends the lease, so nothing waits for it to run out). */
  release(): Promise<void> | void;
}

/** What a wake-up is about. */
export type WakeUpTopic =
  /** Deliveries were queued or released: the delivery worker claims at once instead of at its next poll. */
  | 'deliveries-queued'
  /** Deliveries were queued, released or answered: the console's live pages reload. */
  | 'deliveries-changed'
  /** Broadcast steps were queued: the broadcast worker looks at once. */
  | 'broadcasts-queued'
  /** An app's credentials for a provider changed or were removed (subject `<app id>/<apns|fcm>`): what is kept of its endpoints and opened credentials is dropped. */
  | 'credentials-changed'
  /** An app's row was written (subject: its id): the authentication cache forgets it (modules/apps/app-row-cache.ts). */
  | 'app-changed'
  /** The admin token was reset: open console event streams check at once whether their session still holds. */
  | 'admin-token-changed';

/** Hears a wake-up; `subject` says what it is about when the topic has one (undefined: anything may have changed). */
export type WakeUpListener = (subject?: string) => void;

/**
 * Multi-instance: a notify reaches the listeners of every instance once the transaction it was
 * sent in commits (PostgreSQL: NOTIFY); a lost one only delays work until the next poll, and a
 * listener must also take a wake-up without its subject (the connection that listens came back:
 * anything may have changed meanwhile).
 */
export interface WakeUps {
  /** Tells the topic's listeners; a writer calls it through `store.afterCommit`, once its unit of work has committed. */
  notify(topic: WakeUpTopic, subject?: string): void;
  /** Calls `listener` at each notify of the topic; it must only schedule work. Returns the unsubscribe. */
  on(topic: WakeUpTopic, listener: WakeUpListener): () => void;
}

/**
 * Multi-instance: at most one instance is leader at a time (PostgreSQL: a session advisory lock,
 * given up with the session) and another takes over when it dies; jobs stay safe to run twice.
 */
export interface Leadership {
  /** Whether this instance runs the scheduler's jobs now (asked before each round). Local: always. */
  isLeader(): Promise<boolean>;
  /** The last answer, without asking (the instance registry's heartbeat, `/metrics`). */
  current(): boolean;
  /** Gives leadership up at a clean stop (after the scheduler stopped), so another takes over at once. */
  release(): Promise<void>;
}

/**
 * Multi-instance: jobs of one key never overlap across instances (PostgreSQL: an advisory lock on
 * the key's hash, held for the job).
 */
export interface KeyedLocks {
  /**
   * Runs `job` once the jobs of `key` called before it have settled, and answers its result. A
   * failed job does not stop the next one.
   */
  run<T>(key: string, job: () => Promise<T>): Promise<T>;
}

export interface StoredSession {
  csrfToken: string;
  expiresAt: number;
  /** The admin token's hash at sign-in: a reset token ends the session. */
  tokenHash: string;
}

/**
 * Multi-instance: a session made or signed out on one instance is seen at once by every other
 * (PostgreSQL: a table keyed by the hash of the session id, never the id itself).
 */
export interface SessionStore {
  /** Keeps a session under the hash of its id; may drop expired ones (and, locally, the oldest beyond a cap). */
  set(idHash: string, session: StoredSession, now: number): void | Promise<void>;
  get(idHash: string): StoredSession | undefined | Promise<StoredSession | undefined>;
  delete(idHash: string): void | Promise<void>;
}

/** A map of state that a shared implementation keeps for every instance. */
export interface StateMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
  delete(key: K): boolean;
  has(key: K): boolean;
  readonly size: number;
  entries(): IterableIterator<[K, V]>;
  values(): IterableIterator<V>;
}

/**
 * Multi-instance: one record per endpoint seen by every instance, written back after each change
 * (EndpointHealth calls `set` after it changes a record), and taking a down endpoint's probe is
 * atomic, so one probe goes at a time across instances.
 */
export interface EndpointHealthState<R> {
  /** Endpoint records by endpoint id (`app|provider|origin`). */
  endpoints: StateMap<string, R>;
  /** Endpoints forgotten (credentials changed) and not sent to since. */
  forgotten: StateMap<string, true>;
  /** Per device token: until when it backs off (a 429 about that token). */
  tokenBackoffs: StateMap<string, number>;
  /**
   * Takes the probe of a down endpoint's current round (the round whose probe is due at `due`):
   * true for one taker in all, unless the probe taken was taken over `lostAfterMs` ago (its
   * instance died). Asked by the sender after the record let a probe go.
   */
  takeProbe(endpointId: string, due: number, now: number, lostAfterMs: number): boolean | Promise<boolean>;
}

/**
 * Multi-instance: the rate holds for the whole installation (counted in one shared place per key),
 * not once per instance. Returns the seconds to wait; 0 = go (and the request is counted).
 */
export type RateLimiter = (key: string) => number;

export interface ThrottleOptions {
  /** Failures allowed before any wait (typos happen). */
  freeFailures?: number;
  /** The first wait; each further failure doubles it. */
  baseLockMs?: number;
  maxLockMs?: number;
  /** Failures older than this are forgotten. */
  windowMs?: number;
  /** Addresses remembered at most; the least recently failing are forgotten first. */
  maxTracked?: number;
}

/**
 * Multi-instance: failures count on every instance, so a guesser spreading attempts over instances
 * waits as long as one hitting a single instance.
 */
export interface FailureThrottle {
  /** Seconds the address must wait before its next attempt; 0 = it may try now. */
  wait(address: string): number;
  /** Counts a failure; a shared implementation answers once it is counted for every instance. */
  fail(address: string): void | Promise<void>;
  /** A success clears the address's record. */
  succeed(address: string): void | Promise<void>;
  /** Addresses currently remembered (the memory bound). */
  readonly size: number;
}

// Guarantee "latest read in a write" (read in this write transaction, so it is the latest): code
// that reads a row inside a write and writes a value computed from it. SQLite has one writer (group
// commit's IMMEDIATE transaction), so such a read is the latest; PostgreSQL must read those rows
// under a row lock in the same transaction: the live-activities repository's `findForWrite` (a
// no-op UPDATE … RETURNING, which also gives the row a new version), or write them with one
// statement conditioned on the row being as read (optimistic: nothing is written otherwise, and
// the caller reads again). Relied on by:
// - live-activities.service.ts `updateNow`: the activity's `lastTimestamp`, from which the APNs
//   timestamp of the update is computed (strictly increasing per activity) and written back, and
//   its instances' priority-10 budget; on PostgreSQL `update` reads without a lock and writes in
//   one statement only while the activity's `lastTimestamp` and row version (`xmin`) are the ones
//   read (live-activities/optimistic-update.ts): every update, end, token report and instance
//   report changes the version, so of two updates decided from one read only one writes;
// - live-activities.service.ts `endNow` and `reportPushToken`: the activity's state, checked and then
//   changed in the same write (activity-streams' `put` reads its stream before the write: the key's
//   lock, KeyedLocks, keeps that read current).
// (`nextTimestamp` of the live-activities repository is one UPDATE … RETURNING: atomic on both.)
