/**
 * Claims under leases (several instances on one database): a row being worked on names the instance
 * whose lease it is under (`claimed_by`), and only claims whose instance no longer holds a live lease
 * in `cluster_instances` are put back. Times come from PostgreSQL's clock so that instances on hosts
 * whose clocks differ agree on whose lease ran out.
 */

/** Milliseconds since the epoch by the database server's clock (moves within a transaction too). */
export const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** A condition on `column` (a claim's owner): true when no live instance holds that claim. */
export const orphaned = (column: string) =>
  `(${column} IS NULL OR ${column} NOT IN (SELECT id FROM cluster_instances WHERE lease_until > ${DB_NOW_MS}))`;
