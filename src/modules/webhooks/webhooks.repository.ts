import type { AttemptRow, DueDelivery, EndpointRow } from './webhooks.types';
import { claims } from '../../queue/claims';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const ENDPOINT_COLUMNS = `id, app_id AS "appId", url, description, events, secret_sealed AS "secretSealed",
  previous_secret_sealed AS "previousSecretSealed", previous_secret_until AS "previousSecretUntil", enabled, disabled_reason AS "disabledReason",
  failing_since AS "failingSince", created_at AS "createdAt", updated_at AS "updatedAt"`;
const ENDPOINT = { numbers: ['previousSecretUntil', 'failingSince', 'createdAt', 'updatedAt'], booleans: ['enabled'] };
const DUE_COLUMNS = `d.id, d.attempts, e.id AS "eventId", e.type AS "eventType", e.body, w.id AS "endpointId", w.url, w.secret_sealed AS "secretSealed",
  w.previous_secret_sealed AS "previousSecretSealed", w.previous_secret_until AS "previousSecretUntil", w.failing_since AS "failingSince"`;
const DUE = { numbers: ['id', 'previousSecretUntil', 'failingSince'] };
const DUE_JOINS = `JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id`;

const byApp = statement<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE app_id = $1 ORDER BY created_at, id`, ENDPOINT);
const byId = statement<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE app_id = $1 AND id = $2`, ENDPOINT);
const insert = statement(
  `INSERT INTO webhook_endpoints (id, app_id, url, description, events, secret_sealed, enabled, disabled_reason, failing_since, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $8, $9)`,
);
// Enabling again ($5) clears the mark and, for an endpoint that was disabled, the failure streak.
const update = statement(
  `UPDATE webhook_endpoints SET url = $1, description = $2, events = $3, secret_sealed = $4, enabled = $5,
          previous_secret_sealed = $6, previous_secret_until = $7,
          disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
          failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END, updated_at = $8 WHERE id = $9`,
);
const remove = statement('DELETE FROM webhook_endpoints WHERE id = $1');
const attempts = statement<AttemptRow>(
  `SELECT id, event_id AS "eventId", event_type AS "eventType", attempt, at, response_status AS "responseStatus", error, duration_ms AS "durationMs"
     FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
  { numbers: ['id', 'at'] },
);
const attemptCount = statement<{ n: number }>('SELECT count(*) AS n FROM webhook_attempts WHERE endpoint_id = $1', { numbers: ['n'] });

// The claim differs per database. Both take the oldest due deliveries, at most $perEndpoint per
// endpoint counting the posts it has in flight, so one endpoint's backlog cannot take every slot.
// SQLite: one process per database, so two statements in one write transaction (SQLite has no
// UPDATE inside WITH); busy ($3) is a JSON object of endpoint id to posts in flight.
const claimIdsSqlite = statement<{ id: number }>(
  `UPDATE webhook_deliveries SET status = 'sending', updated_at = $1
    WHERE id IN (SELECT id FROM (
                   SELECT d.id, d.next_attempt_at AS due,
                          row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) + coalesce(busy.value, 0) AS slot
                     FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
                     LEFT JOIN json_each($3) busy ON busy.key = d.endpoint_id
                    WHERE d.status = 'pending' AND d.next_attempt_at <= $1)
                  WHERE slot <= $4 ORDER BY due, id LIMIT $2)
    RETURNING id`,
  { numbers: ['id'] },
);
const claimedSqlite = statement<DueDelivery>(
  (d) => `SELECT ${DUE_COLUMNS} FROM webhook_deliveries d ${DUE_JOINS} WHERE ${d.inList('d.id', '$1', 'bigint')} ORDER BY d.id`,
  DUE,
);
// PostgreSQL: several instances may claim at once (two runs during a scheduler takeover), so one
// statement locks the due rows with SKIP LOCKED and names this instance ($6). `status = 'pending'`
// at the locking level: a row another claim took and committed after this statement's snapshot is
// re-checked on its newest version once locked, and left. busy: endpoint ids and counts as two arrays.
const claimPostgres = statement<DueDelivery>(
  (d) => `WITH claimed AS (
     UPDATE webhook_deliveries SET status = 'sending'${claims.take(d, '$6')}, updated_at = $1
      WHERE id IN (SELECT id FROM webhook_deliveries WHERE id IN (
                     SELECT id FROM (
                       SELECT d.id, d.next_attempt_at AS due,
                              row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) + coalesce(busy.n, 0) AS slot
                         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
                         LEFT JOIN unnest($3::text[], $4::int[]) AS busy(endpoint, n) ON busy.endpoint = d.endpoint_id
                        WHERE d.status = 'pending' AND d.next_attempt_at <= $1) ranked
                      WHERE slot <= $5 ORDER BY due, id LIMIT $2)
                     AND status = 'pending'${d.skipLocked})
      RETURNING id)
   SELECT ${DUE_COLUMNS} FROM claimed c JOIN webhook_deliveries d ON d.id = c.id ${DUE_JOINS} ORDER BY d.id`,
  DUE,
);

// An attempt is recorded only while its delivery is still claimed (src/queue/claims.ts): `sending`,
// by this instance ($6). A delivery put back meanwhile (stale, or recovered by another instance) is
// someone else's to record.
const outcome = statement(
  (d) => `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, updated_at = $4${claims.end(d)}
           WHERE id = $5 AND status = 'sending'${claims.stillMine(d, '$6')}`,
);
const attempt = statement(
  `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, at, response_status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
);
const succeeded = statement('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL');
const failing = statement('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL');
const disable = statement((d) => `UPDATE webhook_endpoints SET enabled = ${d.bool(false)}, disabled_reason = $1, updated_at = $2 WHERE id = $3 AND enabled`);
// Only once Islet disabled the endpoint: one disabled by hand keeps its queue for when it is enabled again.
const giveUp = statement(
  `UPDATE webhook_deliveries SET status = 'failed', updated_at = $1 WHERE endpoint_id = $2 AND status = 'pending'
      AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $2 AND NOT enabled AND disabled_reason IS NOT NULL)`,
);
const releaseStale = statement(
  (d) => `UPDATE webhook_deliveries SET status = 'pending'${claims.end(d)}, updated_at = $1 WHERE status = 'sending' AND updated_at < $2`,
);
// PostgreSQL: only the claims of instances without a live lease; SQLite: every one (one process).
const recoverSending = statement((d) => `UPDATE webhook_deliveries SET status = 'pending'${claims.end(d)}, updated_at = $1 WHERE status = 'sending'${claims.orphaned(d)}`);
const pruneDeliveries = statement(`DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < $1`);
const pruneAttempts = statement('DELETE FROM webhook_attempts WHERE at < $1');
const pruneEvents = statement(
  'DELETE FROM webhook_events WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)',
);

/**
 * Webhook endpoints, their outbox and their attempts.
 * Its claims follow the queue's protocol (src/queue/claims.ts), as deliveries' do.
 */
export const webhooksRepository = repository((sql: Sql) => {
  return {
    list: (appId: string): Promise<EndpointRow[]> => sql.all(byApp, [appId]),
    find: (appId: string, id: string): Promise<EndpointRow | undefined> => sql.one(byId, [appId, id]),
    async insert(row: EndpointRow): Promise<void> {
      await sql.run(insert, [row.id, row.appId, row.url, row.description, row.events, row.secretSealed, row.enabled, row.createdAt, row.updatedAt]);
    },
    /** Saves url, description, events, enabled and the secrets; enabling again clears the mark and the failure streak. */
    async update(row: EndpointRow, now: number): Promise<void> {
      await sql.run(update, [row.url, row.description, row.events, row.secretSealed, row.enabled, row.previousSecretSealed, row.previousSecretUntil, now, row.id]);
    },
    async remove(id: string): Promise<void> {
      await sql.run(remove, [id]);
    },
    attempts: async (endpointId: string, limit: number, offset: number): Promise<{ rows: AttemptRow[]; total: number }> => ({
      rows: await sql.all(attempts, [endpointId, limit, offset]),
      total: (await sql.one(attemptCount, [endpointId]))!.n,
    }),

    /**
     * Takes up to `limit` due deliveries (marking them `sending`), oldest first, and at most
     * `perEndpoint` for each endpoint together with the posts it has in flight (`busy`).
     */
    claim(now: number, limit: number, perEndpoint: number = limit, busy: ReadonlyMap<string, number> = new Map()): Promise<DueDelivery[]> {
      if (sql.dialect.name === 'postgres') return sql.all(claimPostgres, [now, limit, [...busy.keys()], [...busy.values()], perEndpoint, sql.owner]);
      return sql.atomic(async (tx) => {
        const ids = await tx.all(claimIdsSqlite, [now, limit, JSON.stringify(Object.fromEntries(busy)), perEndpoint]);
        return ids.length === 0 ? [] : tx.all(claimedSqlite, [ids.map((r) => r.id)]);
      });
    },

    /**
     * Writes one attempt and its consequences in one transaction: the delivery's new state, the
     * endpoint's failure streak, and, when `disableReason` is given, the endpoint disabled with its
     * pending deliveries failed.
     */
    record: (d: DueDelivery, result: { ok: boolean; status: number | null; error: string | null; durationMs: number; at: number }, next: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: number; disableReason?: string }): Promise<void> =>
      sql.atomic(async (tx) => {
        const mine = await tx.run(outcome, claims.withOwner(tx, [next.status, d.attempts + 1, next.nextAttemptAt, result.at, d.id]));
        if (mine === 0) return;
        await tx.run(attempt, [d.endpointId, d.eventId, d.eventType, d.attempts + 1, result.at, result.status, result.error, result.durationMs]);
        if (result.ok) await tx.run(succeeded, [d.endpointId]);
        else await tx.run(failing, [d.endpointId, result.at]);
        if (next.disableReason) await tx.run(disable, [next.disableReason, result.at, d.endpointId]);
        // Also after a send that was in flight when another attempt disabled the endpoint.
        await tx.run(giveUp, [result.at, d.endpointId]);
      }),

    /**
     * Deliveries `sending` since before `before` go back to the queue: a claim whose answer was lost
     * with its connection, or an attempt that could not be recorded (the database away), would
     * otherwise stay `sending` while the process that claimed it lives. Receivers deduplicate by
     * webhook-id, so the rare late second post is harmless.
     */
    releaseStale: (before: number, now: number): Promise<number> => sql.run(releaseStale, [now, before]),
    /**
     * At start: what a previous process was sending is due again (receivers deduplicate by webhook-id).
     * PostgreSQL: only claims of instances without a live lease (src/queue/claims.ts).
     */
    recoverSending: (now: number): Promise<number> => sql.run(recoverSending, [now]),
    /**
     * Deletes finished deliveries and attempts older than `before`, and events left without deliveries
     * older than `eventsBefore` (in the caller's transaction: the retention job's).
     */
    prune: async (before: number, eventsBefore: number): Promise<number> =>
      (await sql.run(pruneDeliveries, [before])) + (await sql.run(pruneAttempts, [before])) + (await sql.run(pruneEvents, [eventsBefore])),
  };
});

export type WebhooksRepository = ReturnType<typeof webhooksRepository>;
