import type { Dialect } from '../db/sql/dialect';
import type { Param, Sql } from '../db/sql/sql';

/**
 * The one claim protocol every queue runs on, as fragments of its feature's statements (the
 * feature writes which rows and what columns; these say whose a claim is).
 *
 * A claimed row is its queue's "being worked on" state (`sending`, or a step with an owner) and,
 * on PostgreSQL, names the instance whose claim it is (`claimed_by`, the executor's `sql.owner`):
 * several instances share one database, each holding a lease in `cluster_instances` that its
 * heartbeat renews (coordination/postgres/instance.ts). The claim itself locks its rows with
 * `FOR UPDATE SKIP LOCKED` (`Dialect.skipLocked`), so claims side by side never take one row.
 * - an outcome or a release writes only rows still claimed by this instance (`stillMine`): one
 *   whose claim was taken over after its lease ran out writes nothing;
 * - recovery puts back only claims no live instance holds (`orphaned`), at start and again at
 *   every takeover of a dead instance's lease (InstanceOwnership.recover).
 * SQLite has one serving process per database file (its instance lock), so the owner is left out
 * there: a claim is the row's state alone, and at start every claim is a stopped process's.
 *
 * Each fragment is empty on SQLite and starts with its separator (`, ` in a SET, ` AND ` in a WHERE).
 * @example UPDATE jobs SET status = 'sending'${claims.take(d, '$3')} WHERE …     // a claim
 *          UPDATE jobs SET status = $1${claims.end(d)} WHERE id = $2 AND status = 'sending'${claims.stillMine(d, '$3')}
 *          await sql.run(outcome, claims.withOwner(sql, [status, id]));
 */
export const claims = {
  /** SET: the row is claimed by the instance given as `param` (the claim's statement passes `sql.owner`). */
  take: (d: Dialect, param: string): string => (leased(d) ? `, claimed_by = ${param}` : ''),
  /** INSERT: the owner's column and value, for a row inserted claimed (`INSERT INTO t (a${claims.insert(d, '$3').column}) VALUES ($1${claims.insert(d, '$3').value})`). */
  insert: (d: Dialect, param: string): { column: string; value: string } => (leased(d) ? { column: ', claimed_by', value: `, ${param}` } : { column: '', value: '' }),
  /** SET: the claim ends (an outcome written, a claim given back or recovered). */
  end: (d: Dialect): string => (leased(d) ? ', claimed_by = NULL' : ''),
  /** WHERE: the claim is still the one of the instance given as `param` (see withOwner). */
  stillMine: (d: Dialect, param: string, column = 'claimed_by'): string => (leased(d) ? ` AND ${d.same(column, param)}` : ''),
  /** WHERE: no live instance holds the claim (nobody claimed it, or its instance's lease ran out). */
  orphaned: (d: Dialect, column = 'claimed_by'): string => (leased(d) ? ` AND ${orphaned(d, column)}` : ''),
  /** WHERE: a row this instance may take: nobody live holds it, or this instance itself does (`param`: the owner). */
  free: (d: Dialect, param: string, column = 'claimed_by'): string => (leased(d) ? ` AND (${column} = ${param} OR ${orphaned(d, column)})` : ''),
  /** The statement's parameters with the owner last, where the dialect names one (bun:sqlite refuses extra values). */
  withOwner: (sql: Sql, params: Param[]): Param[] => (leased(sql.dialect) ? [...params, sql.owner] : params),
};

/** Whether claims carry their owner: several instances share the database. */
const leased = (d: Dialect) => d.name === 'postgres';

/** A claim's owner has no live lease (or there is none). */
const orphaned = (d: Dialect, column: string) => `(${column} IS NULL OR ${column} NOT IN (SELECT id FROM cluster_instances WHERE lease_until > ${d.nowMs}))`;
