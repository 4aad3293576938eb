import { bigint, boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Tables only several instances on one PostgreSQL database need (this folder), so SQLite has no
 * twin of them and they are plain pg-core tables (schema-parity.test.ts checks them on PostgreSQL). Times are milliseconds since
 * the epoch by PostgreSQL's clock, so instances on hosts whose clocks differ agree on leases.
 */

/** One row per instance that has served: live while `lease_until` is ahead of the database's clock. */
export const clusterInstances = pgTable(
  'cluster_instances',
  {
    id: text('id').primaryKey(),
    host: text('host').notNull(),
    pid: integer('pid').notNull(),
    version: text('version').notNull(),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    lastSeen: bigint('last_seen', { mode: 'number' }).notNull(),
    /** Claims under this instance's id are taken over once this has passed (the instance died). */
    leaseUntil: bigint('lease_until', { mode: 'number' }).notNull(),
    /** Whether it held the scheduler's advisory lock at its last heartbeat. */
    leader: boolean('leader').notNull().default(false),
  },
  (t) => [index('cluster_instances_lease').on(t.leaseUntil)],
);

/** Console sessions, keyed by the SHA-256 of the session id (never the id itself). */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    csrfToken: text('csrf_token').notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    tokenHash: text('token_hash').notNull(),
  },
  (t) => [index('console_sessions_expires').on(t.expiresAt)],
);

/** Failed attempts at a secret per client address (FailureThrottle), counted for every instance. */
export const authFailures = pgTable(
  'auth_failures',
  {
    name: text('name').notNull(),
    address: text('address').notNull(),
    failures: integer('failures').notNull(),
    lastAt: bigint('last_at', { mode: 'number' }).notNull(),
    lockedUntil: bigint('locked_until', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.address] }), index('auth_failures_last').on(t.lastAt)],
);

/** Shared maps of state (provider endpoint health): a JSON value per key of a named map. */
export const sharedState = pgTable(
  'shared_state',
  {
    map: text('map').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.map, t.key] })],
);
