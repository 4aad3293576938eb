import type { AttemptRow, DueDelivery, EndpointRow, WebhooksRepository } from '../../../modules/webhooks/webhooks.repository';
import { orphaned } from '../claims';
import { all, one, run, type PgScope } from '../query';

const ENDPOINT_COLUMNS = `id, app_id AS "appId", url, description, events, secret_sealed AS "secretSealed",
  previous_secret_sealed AS "previousSecretSealed", previous_secret_until AS "previousSecretUntil", enabled, disabled_reason AS "disabledReason",
  failing_since AS "failingSince", created_at AS "createdAt", updated_at AS "updatedAt"`;
const ENDPOINT_NUMBERS = ['previousSecretUntil', 'failingSince', 'createdAt', 'updatedAt'];

/**
 * Webhook endpoints, their outbox and their attempts on PostgreSQL (see modules/webhooks/webhooks.repository.ts).
 * Claims name their instance as deliveries' do (claims.ts): an attempt is recorded only while the
 * delivery is still claimed by this instance.
 */
export function webhooksPg({ q, atomic, owner }: PgScope): WebhooksRepository {
  return {
    list: (appId) => all<EndpointRow>(q, `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE app_id = $1 ORDER BY created_at, id`, [appId], ENDPOINT_NUMBERS),
    find: (appId, id) => one<EndpointRow>(q, `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE app_id = $1 AND id = $2`, [appId, id], ENDPOINT_NUMBERS),

    async insert(row) {
      await run(
        q,
        `INSERT INTO webhook_endpoints (id, app_id, url, description, events, secret_sealed, enabled, disabled_reason, failing_since, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $8, $9)`,
        [row.id, row.appId, row.url, row.description, row.events, row.secretSealed, row.enabled, row.createdAt, row.updatedAt],
      );
    },

    async update(row, now) {
      await run(
        q,
        `UPDATE webhook_endpoints SET url = $1, description = $2, events = $3, secret_sealed = $4, enabled = $5,
                previous_secret_sealed = $6, previous_secret_until = $7,
                disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
                failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END, updated_at = $8 WHERE id = $9`,
        [row.url, row.description, row.events, row.secretSealed, row.enabled, row.previousSecretSealed, row.previousSecretUntil, now, row.id],
      );
    },

    async remove(id) {
      await run(q, 'DELETE FROM webhook_endpoints WHERE id = $1', [id]);
    },

    attempts: async (endpointId, limit, offset) => ({
      rows: await all<AttemptRow>(
        q,
        `SELECT id, event_id AS "eventId", event_type AS "eventType", attempt, at, response_status AS "responseStatus", error, duration_ms AS "durationMs"
           FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
        [endpointId, limit, offset],
        ['id', 'at'],
      ),
      total: (await one<{ n: number }>(q, 'SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [endpointId]))!.n,
    }),

    // One statement: the due rows are locked with SKIP LOCKED, and at most perEndpoint per endpoint
    // counting its posts in flight (busy: endpoint ids and counts as two arrays). `status = 'pending'`
    // at the locking level: a row another claim took and committed after this statement's snapshot
    // is re-checked on its newest version once locked, and left (two runs during a scheduler takeover).
    claim: (now, limit, perEndpoint = limit, busy = new Map()) =>
      all<DueDelivery>(
        q,
        `WITH claimed AS (
           UPDATE webhook_deliveries SET status = 'sending', claimed_by = $6, updated_at = $1
            WHERE id IN (SELECT id FROM webhook_deliveries WHERE id IN (
                           SELECT id FROM (
                             SELECT d.id, d.next_attempt_at AS due,
                                    row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) + coalesce(busy.n, 0) AS slot
                               FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
                               LEFT JOIN unnest($3::text[], $4::int[]) AS busy(endpoint, n) ON busy.endpoint = d.endpoint_id
                              WHERE d.status = 'pending' AND d.next_attempt_at <= $1) ranked
                            WHERE slot <= $5 ORDER BY due, id LIMIT $2)
                           AND status = 'pending'
                         FOR UPDATE SKIP LOCKED)
            RETURNING id)
         SELECT d.id, d.attempts, e.id AS "eventId", e.type AS "eventType", e.body, w.id AS "endpointId", w.url, w.secret_sealed AS "secretSealed",
                w.previous_secret_sealed AS "previousSecretSealed", w.previous_secret_until AS "previousSecretUntil", w.failing_since AS "failingSince"
           FROM claimed c JOIN webhook_deliveries d ON d.id = c.id JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
          ORDER BY d.id`,
        [now, limit, [...busy.keys()], [...busy.values()], perEndpoint, owner],
        ['id', 'previousSecretUntil', 'failingSince'],
      ),

    record: (d, result, next) =>
      atomic(async (c) => {
        const mine = await run(
          c,
          `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, updated_at = $4, claimed_by = NULL
            WHERE id = $5 AND status = 'sending' AND claimed_by IS NOT DISTINCT FROM $6`,
          [next.status, d.attempts + 1, next.nextAttemptAt, result.at, d.id, owner],
        );
        if (mine === 0) return;
        await run(
          c,
          `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, at, response_status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [d.endpointId, d.eventId, d.eventType, d.attempts + 1, result.at, result.status, result.error, result.durationMs],
        );
        if (result.ok) await run(c, 'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [d.endpointId]);
        else await run(c, 'UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL', [d.endpointId, result.at]);
        if (next.disableReason)
          await run(c, 'UPDATE webhook_endpoints SET enabled = false, disabled_reason = $1, updated_at = $2 WHERE id = $3 AND enabled', [
            next.disableReason,
            result.at,
            d.endpointId,
          ]);
        await run(
          c,
          `UPDATE webhook_deliveries SET status = 'failed', updated_at = $1 WHERE endpoint_id = $2 AND status = 'pending'
              AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $2 AND NOT enabled AND disabled_reason IS NOT NULL)`,
          [result.at, d.endpointId],
        );
      }),

    recoverSending: (now) =>
      run(q, `UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, updated_at = $1 WHERE status = 'sending' AND ${orphaned('claimed_by')}`, [now]),

    prune: async (before, eventsBefore) =>
      (await run(q, `DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < $1`, [before])) +
      (await run(q, 'DELETE FROM webhook_attempts WHERE at < $1', [before])) +
      (await run(q, 'DELETE FROM webhook_events WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)', [
        eventsBefore,
      ])),
  };
}
