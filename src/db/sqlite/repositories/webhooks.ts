import type { Db } from '../database';
import { promised } from '../promised';
import type { EndpointRow, AttemptRow, DueDelivery, WebhooksRepository } from '../../../modules/webhooks/webhooks.repository';

const ENDPOINT_COLUMNS = `id, app_id AS appId, url, description, events, secret_sealed AS secretSealed,
  previous_secret_sealed AS previousSecretSealed, previous_secret_until AS previousSecretUntil, enabled, disabled_reason AS disabledReason,
  failing_since AS failingSince, created_at AS createdAt, updated_at AS updatedAt`;

const asEndpoint = (row: EndpointRow | null): EndpointRow | undefined => (row ? { ...row, enabled: Boolean(row.enabled) } : undefined);

/** The statements on webhook endpoints, their outbox and their attempts. */
function webhooksStatements(db: Db) {
  const client = db.$client;
  const byApp = client.query<EndpointRow, [string]>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE app_id = ? ORDER BY created_at, id`);
  const one = client.query<EndpointRow, [string, string]>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE app_id = ? AND id = ?`);
  const attempts = client.query<AttemptRow, [string, number, number]>(
    `SELECT id, event_id AS eventId, event_type AS eventType, attempt, at, response_status AS responseStatus, error, duration_ms AS durationMs
       FROM webhook_attempts WHERE endpoint_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
  );
  const attemptCount = client.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM webhook_attempts WHERE endpoint_id = ?`);
  // The oldest due deliveries, at most ?4 per endpoint counting those it has in flight (?3: a JSON
  // object of endpoint id to posts in flight), so one endpoint's backlog cannot take every slot.
  const claimIds = client.query<{ id: number }, [number, number, string, number]>(
    `UPDATE webhook_deliveries SET status = 'sending', updated_at = ?1
      WHERE id IN (SELECT id FROM (
                     SELECT d.id, d.next_attempt_at AS due,
                            row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) + coalesce(busy.value, 0) AS slot
                       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled = 1
                       LEFT JOIN json_each(?3) busy ON busy.key = d.endpoint_id
                      WHERE d.status = 'pending' AND d.next_attempt_at <= ?1)
                    WHERE slot <= ?4 ORDER BY due, id LIMIT ?2)
      RETURNING id`,
  );
  const claimed = client.query<DueDelivery, [string]>(
    `SELECT d.id, d.attempts, e.id AS eventId, e.type AS eventType, e.body, w.id AS endpointId, w.url, w.secret_sealed AS secretSealed,
            w.previous_secret_sealed AS previousSecretSealed, w.previous_secret_until AS previousSecretUntil, w.failing_since AS failingSince
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id`,
  );
  const outcome = client.query(`UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, updated_at = ? WHERE id = ?`);
  const attempt = client.query(
    `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempt, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const succeeded = client.query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`);
  const failing = client.query(`UPDATE webhook_endpoints SET failing_since = ?2 WHERE id = ?1 AND failing_since IS NULL`);
  const disable = client.query(`UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1`);
  // Only once Islet disabled the endpoint: one disabled by hand keeps its queue for when it is enabled again.
  const giveUp = client.query(
    `UPDATE webhook_deliveries SET status = 'failed', updated_at = ?1 WHERE endpoint_id = ?2 AND status = 'pending'
        AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?2 AND enabled = 0 AND disabled_reason IS NOT NULL)`,
  );

  return {
    list: (appId: string): EndpointRow[] => byApp.all(appId).map((r) => asEndpoint(r)!),
    find: (appId: string, id: string): EndpointRow | undefined => asEndpoint(one.get(appId, id)),

    insert(row: EndpointRow): void {
      client
        .query(
          `INSERT INTO webhook_endpoints (id, app_id, url, description, events, secret_sealed, enabled, disabled_reason, failing_since, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?)`,
        )
        .run(row.id, row.appId, row.url, row.description, row.events, row.secretSealed, row.enabled ? 1 : 0, row.createdAt, row.updatedAt);
    },

    /** Saves url, description, events, enabled and the secrets; enabling again clears the mark and the failure streak. */
    update(row: EndpointRow, now: number): void {
      client
        .query(
          `UPDATE webhook_endpoints SET url = ?1, description = ?2, events = ?3, secret_sealed = ?4, enabled = ?5,
                  previous_secret_sealed = ?6, previous_secret_until = ?7,
                  disabled_reason = CASE WHEN ?5 = 1 THEN NULL ELSE disabled_reason END,
                  failing_since = CASE WHEN ?5 = 1 AND enabled = 0 THEN NULL ELSE failing_since END, updated_at = ?8 WHERE id = ?9`,
        )
        .run(row.url, row.description, row.events, row.secretSealed, row.enabled ? 1 : 0, row.previousSecretSealed, row.previousSecretUntil, now, row.id);
    },

    remove(id: string): void {
      client.query(`DELETE FROM webhook_endpoints WHERE id = ?`).run(id);
    },

    attempts(endpointId: string, limit: number, offset: number): { rows: AttemptRow[]; total: number } {
      return { rows: attempts.all(endpointId, limit, offset), total: attemptCount.get(endpointId)!.n };
    },

    /**
     * Takes up to `limit` due deliveries (marking them `sending`), oldest first, and at most
     * `perEndpoint` for each endpoint together with the posts it has in flight (`busy`).
     */
    claim(now: number, limit: number, perEndpoint = limit, busy: ReadonlyMap<string, number> = new Map()): DueDelivery[] {
      return client.transaction(() => {
        const ids = claimIds.all(now, limit, JSON.stringify(Object.fromEntries(busy)), perEndpoint);
        return ids.length === 0 ? [] : claimed.all(JSON.stringify(ids.map((r) => r.id)));
      }).immediate();
    },

    /**
     * Writes one attempt and its consequences in one transaction: the delivery's new state, the
     * endpoint's failure streak, and, when `disableReason` is given, the endpoint disabled with its
     * pending deliveries failed.
     */
    record(
      d: DueDelivery,
      result: { ok: boolean; status: number | null; error: string | null; durationMs: number; at: number },
      next: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: number; disableReason?: string },
    ): void {
      client.transaction(() => {
        attempt.run(d.endpointId, d.eventId, d.eventType, d.attempts + 1, result.at, result.status, result.error, result.durationMs);
        outcome.run(next.status, d.attempts + 1, next.nextAttemptAt, result.at, d.id);
        if (result.ok) succeeded.run(d.endpointId);
        else failing.run(d.endpointId, result.at);
        if (next.disableReason) disable.run(next.disableReason, result.at, d.endpointId);
        // Also after a send that was in flight when another attempt disabled the endpoint.
        giveUp.run(result.at, d.endpointId);
      }).immediate();
    },

    releaseStale(before: number, now: number): number {
      return client.query(`UPDATE webhook_deliveries SET status = 'pending', updated_at = ? WHERE status = 'sending' AND updated_at < ?`).run(now, before).changes;
    },

    /** At start: what a previous process was sending is due again (receivers deduplicate by webhook-id). */
    recoverSending(now: number): number {
      return client.query(`UPDATE webhook_deliveries SET status = 'pending', updated_at = ? WHERE status = 'sending'`).run(now).changes;
    },

    /**
     * Deletes finished deliveries and attempts older than `before`, and events left without deliveries
     * older than `eventsBefore` (in the caller's transaction: the retention job's).
     */
    prune(before: number, eventsBefore: number): number {
      return (
        client.query(`DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ?`).run(before).changes +
        client.query(`DELETE FROM webhook_attempts WHERE at < ?`).run(before).changes +
        client
          .query(`DELETE FROM webhook_events WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`)
          .run(eventsBefore).changes
      );
    },
  };
}

/** The repository over webhooksStatements: every method returns a Promise. */
export const webhooksRepository = (db: Db): WebhooksRepository => promised(webhooksStatements(db));
