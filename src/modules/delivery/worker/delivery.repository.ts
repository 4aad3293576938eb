import type { DeliveryResult, PausedChannel, RecordedOutcomes } from './delivery.types';
import type { ClaimedDelivery } from './delivery.routing';
import type { WebhookEventInput } from '../../webhooks/delivery-events';
import { claims } from '../../../queue/claims';
import type { Dialect } from '../../../db/sql/dialect';
import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { tokensRepository } from '../../tokens/tokens.repository';
import { webhookEventsRepository } from '../../webhooks/webhook-events.repository';
import { repository } from '../../../db/sql/repository';

const CLAIMED_COLUMNS = `d.id, d.app_id AS "appId", d.message_id AS "messageId", d.device_id AS "deviceId", d.activity_id AS "activityId",
  d.attempts, d.next_attempt_at AS "nextAttemptAt", m.kind, m.content, m.sent_body AS "sentBody", dev.platform, dev.end_user_id AS "endUserId",
  t.id AS "tokenId", t.kind AS "tokenKind", t.value AS "tokenValue", t.secret_sealed AS "tokenSecret", t.device_id AS "tokenDeviceId", t.activity_id AS "tokenActivityId",
  t.environment, t.state AS "tokenState", t.invalid_reason AS "invalidReason"`;
const CLAIMED_JOINS = `JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id LEFT JOIN tokens t ON t.id = d.token_id`;
const CLAIMED = { numbers: ['id', 'messageId', 'nextAttemptAt', 'tokenId'] };

/**
 * A delivery being sent is `sending`, under the queue's claim protocol (src/queue/claims.ts):
 * outcomes and releases write only rows still claimed by this instance, so one whose claim was
 * taken over after its lease ran out writes nothing. `param`: where the statement takes the owner.
 */
const mine = (d: Dialect, param: string) => `status = 'sending'${claims.stillMine(d, param)}`;

// SQLite: one process claims, in one transaction: the ids first (ordered by next_attempt_at, then
// rowid, inside the index: the claim walks deliveries_due instead of sorting every due row of a
// large fan-out), then their rows joined for routing.
const claimIdsSqlite = statement<{ id: number }>(
  `UPDATE deliveries SET status = 'sending', updated_at = $1
    WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2)
    RETURNING id`,
);
const claimedSqlite = statement<ClaimedDelivery>((d) => `SELECT ${CLAIMED_COLUMNS} FROM deliveries d ${CLAIMED_JOINS} WHERE ${d.inList('d.id', '$1', 'bigint')} ORDER BY d.id`, CLAIMED);
// PostgreSQL: one statement; the due rows are locked with SKIP LOCKED, so claims running side by
// side never take the same row and never wait on each other; each names its instance ($3).
const claimPostgres = statement<ClaimedDelivery>(
  (d) => `WITH claimed AS (
     UPDATE deliveries SET status = 'sending'${claims.take(d, '$3')}, updated_at = $1
      WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2${d.skipLocked})
      RETURNING id)
   SELECT ${CLAIMED_COLUMNS} FROM deliveries d JOIN claimed c ON c.id = d.id ${CLAIMED_JOINS} ORDER BY d.id`,
  CLAIMED,
);

const update = statement(
  (d) => `UPDATE deliveries SET status = $1, attempts = $2, next_attempt_at = $3, provider = COALESCE($4, provider), provider_id = $5,
          reason = $6, hold_kind = $7, hold_endpoint = $8, sent_payload = COALESCE($9, sent_payload), updated_at = $10${claims.end(d)}
    WHERE id = $11 AND ${mine(d, '$12')}`,
);
// PostgreSQL: the plain outcomes of a batch in one statement, their values as arrays (a round trip
// per row cost more than the writes); SQLite runs `update` per row, prepared, which costs less
// than building the arrays would.
const updateMany = statement<{ id: number }>(
  (d) => `UPDATE deliveries d SET status = v.status, attempts = v.attempts, next_attempt_at = v.next_attempt_at, provider = COALESCE(v.provider, d.provider),
          provider_id = v.provider_id, reason = v.reason, hold_kind = v.hold_kind, hold_endpoint = v.hold_endpoint,
          sent_payload = COALESCE(v.sent_payload, d.sent_payload), updated_at = $11${claims.end(d)}
     FROM unnest($1::bigint[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
          AS v(id, status, attempts, next_attempt_at, provider, provider_id, reason, hold_kind, hold_endpoint, sent_payload)
    WHERE d.id = v.id AND d.status = 'sending'${claims.stillMine(d, '$12', 'd.claimed_by')}
    RETURNING d.id`,
  { numbers: ['id'] },
);
// The token may have been reported between the claim and now: then the delivery goes to it at once.
// (SET sees the old row, so the lookup is written out twice.)
const ACTIVITY_TOKEN = `(SELECT id FROM tokens WHERE activity_id = $1 AND device_id = $2 AND kind = 'apns_activity' AND state = 'active')`;
const holdForToken = statement(
  (d) => `UPDATE deliveries SET token_id = ${ACTIVITY_TOKEN},
          status = CASE WHEN ${ACTIVITY_TOKEN} IS NULL THEN 'held' ELSE 'pending' END,
          reason = CASE WHEN ${ACTIVITY_TOKEN} IS NULL THEN $3 END,
          hold_kind = CASE WHEN ${ACTIVITY_TOKEN} IS NULL THEN 'token' END, updated_at = $4${claims.end(d)}
    WHERE id = $5 AND ${mine(d, '$6')}`,
);
// Only attempts answered with a retry: the row keeps the last one (see delivery.tables.ts deliveryAttempts).
const retried = statement(
  `INSERT INTO delivery_attempts (delivery_id, attempt, at, provider, provider_id, reason) VALUES ($1, $2, $3, $4, $5, $6)
   ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, provider = excluded.provider, provider_id = excluded.provider_id, reason = excluded.reason`,
);
// Latest wins (outbox.ts supersede): an update that was in flight when a newer update or end of
// its activity was queued for the device, and comes back to wait (a retry, a down channel), would
// otherwise go after the newer one. A newer message's deliveries were written after this one's, so
// `newer.id > id` makes the lookup a range of deliveries_activity (activity_id, rowid).
const supersedeStale = statement<{ appId: string; provider: string | null }>(
  `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', hold_kind = NULL, updated_at = $1
    WHERE id = $2 AND status IN ('pending', 'held')
      AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'
      AND EXISTS (SELECT 1 FROM deliveries newer JOIN messages m ON m.id = newer.message_id
                   WHERE newer.activity_id = deliveries.activity_id AND newer.id > deliveries.id
                     AND newer.device_id = deliveries.device_id AND newer.message_id > deliveries.message_id
                     AND m.kind IN ('la_update', 'la_end'))
    RETURNING app_id AS "appId", provider`,
);
const setMessageBody = statement('UPDATE messages SET sent_body = $1 WHERE id = $2 AND sent_body IS NULL');
const pause = {
  apns: statement(
    (d) => `UPDATE apps SET apns_paused_reason = $1, updated_at = $2 WHERE id = $3 AND ${d.same('apns_sealed', d.typed('$4', 'text'))} AND apns_paused_reason IS NULL`,
  ),
  fcm: statement(
    (d) => `UPDATE apps SET fcm_paused_reason = $1, updated_at = $2 WHERE id = $3 AND ${d.same('fcm_sealed', d.typed('$4', 'text'))} AND fcm_paused_reason IS NULL`,
  ),
};
const resume = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND (
      (hold_kind = 'apns_paused' AND app_id IN (SELECT id FROM apps WHERE apns_paused_reason IS NULL)) OR
      (hold_kind = 'fcm_paused' AND app_id IN (SELECT id FROM apps WHERE fcm_paused_reason IS NULL)))`,
);
const anyParked = statement(`SELECT 1 AS one FROM deliveries WHERE status = 'held' AND hold_kind IN ('apns_paused', 'fcm_paused') LIMIT 1`);
const release = statement(
  (d) => `UPDATE deliveries SET status = 'pending', updated_at = $1${claims.end(d)} WHERE ${d.inList('id', '$2', 'bigint')} AND ${mine(d, '$3')}`,
);
const releaseUnheld = statement(
  (d) => `UPDATE deliveries SET status = 'pending', updated_at = $1${claims.end(d)} WHERE ${mine(d, '$3')} AND ${d.notInList('id', '$2', 'bigint')}`,
);
// PostgreSQL: only claims of instances without a live lease (src/queue/claims.ts).
const recoverSending = statement((d) => `UPDATE deliveries SET status = 'pending', updated_at = $1${claims.end(d)} WHERE status = 'sending'${claims.orphaned(d)}`);

/**
 * The delivery worker's statements on the outbox:
 * claims, and outcomes written many per transaction, each applying the effects the worker decided
 * (outcome-effects.ts) and nothing more. On SQLite also the outbox thread's (its own connection).
 */
export const deliveriesRepository = repository((sql: Sql) => {
  return {
    /** Takes up to `limit` due deliveries (marking them `sending`) and returns them joined for routing. */
    claim: (now: number, limit: number): Promise<ClaimedDelivery[]> => {
      if (sql.dialect.name === 'postgres') return sql.all(claimPostgres, [now, limit, sql.owner]);
      return sql.atomic(async (tx) => {
        const ids = await tx.all(claimIdsSqlite, [now, limit]);
        return ids.length === 0 ? [] : tx.all(claimedSqlite, [ids.map((r) => r.id)]);
      });
    },

    /**
     * Writes outcomes and their side effects (invalid tokens, paused channels) in one transaction.
     * Returns the channels this paused (not those already paused), and the updates it superseded
     * instead of putting them back to wait (for islet_deliveries_total).
     */
    record: (results: DeliveryResult[], now: number): Promise<RecordedOutcomes> =>
      sql.atomic(async (tx) => {
        const tokens = tokensRepository(tx);
        const paused: PausedChannel[] = [];
        const superseded: RecordedOutcomes['superseded'] = [];
        const failed: WebhookEventInput[] = [];
        const invalidated: WebhookEventInput[] = [];
        const batched = tx.dialect.name === 'postgres' ? await writtenAtOnce(tx, results, now) : undefined;
        for (const r of results) {
          if (r.holdFor !== undefined) await tx.run(holdForToken, claims.withOwner(tx, [r.holdFor.activityId, r.holdFor.deviceId, r.reason, now, r.id]));
          else {
            const params = [r.status, r.attempts, r.nextAttemptAt, r.provider, r.providerId, r.reason, r.holdKind, r.holdEndpoint ?? null, r.sentPayload, now, r.id];
            const written = batched ? batched.has(r.id) : (await tx.run(update, claims.withOwner(tx, params))) > 0;
            if (written && r.recordAttempt) await tx.run(retried, [r.id, r.attempts, now, r.provider, r.providerId, r.reason]);
          }
          if (r.supersedeIfStale) {
            const stale = await tx.one(supersedeStale, [now, r.id]);
            if (stale) superseded.push(stale);
          }
          if (r.messageBody) await tx.run(setMessageBody, [r.messageBody.body, r.messageBody.messageId]);
          const t = r.invalidateToken;
          if (t && (await tokens.invalidate(t.tokenId, t.reason, now, t.since)) && t.event) invalidated.push(t.event);
          const p = r.pauseChannel;
          if (p && p.provider !== 'webpush' && (await tx.run(pause[p.provider], [p.reason, now, p.appId, p.sealed])) > 0) paused.push(p);
          if (r.events) failed.push(...r.events);
        }
        // Webhooks (delivery.failed, device.token_invalidated), committed with the outcomes.
        await webhookEventsRepository(tx).emitAll(failed.concat(invalidated), now);
        return { paused, superseded };
      }),

    /** Deliveries parked on a channel that is no longer paused become due now. */
    releaseResumed: (now: number): Promise<number> => sql.run(resume, [now]),
    hasParked: async (): Promise<boolean> => (await sql.one(anyParked)) !== undefined,
    /** Gives claimed deliveries back (shutting down before their outcome was known). */
    release: async (ids: number[], now: number): Promise<number> => (ids.length === 0 ? 0 : sql.run(release, claims.withOwner(sql, [now, ids]))),
    /**
     * Gives back this process's claims other than `held`: a claim whose answer was lost with its
     * connection (PostgreSQL restarting) may have committed, and nobody else would ever take it over
     * while this instance lives. PostgreSQL: only claims under this instance's id.
     */
    releaseUnheld: (held: number[], now: number): Promise<number> => sql.run(releaseUnheld, claims.withOwner(sql, [now, held])),
    /**
     * At start: whatever a previous process claimed and did not finish is due again (at least once).
     * PostgreSQL: only claims of instances without a live lease (src/queue/claims.ts).
     */
    recoverSending: (now: number): Promise<number> => sql.run(recoverSending, [now]),
  };
});

export type DeliveryRepository = ReturnType<typeof deliveriesRepository>;

/** PostgreSQL: writes the outcomes that are no hold for a token in one statement; answers the ids it wrote (those still claimed by this instance). */
async function writtenAtOnce(tx: Sql, results: readonly DeliveryResult[], now: number): Promise<Set<number>> {
  const plain = results.filter((r) => r.holdFor === undefined);
  if (plain.length === 0) return new Set();
  const column = <T extends string | number | null>(pick: (r: DeliveryResult) => T) => plain.map(pick);
  const rows = await tx.all(updateMany, [
    column((r) => r.id),
    column((r) => r.status),
    column((r) => r.attempts),
    column((r) => r.nextAttemptAt),
    column((r) => r.provider),
    column((r) => r.providerId),
    column((r) => r.reason),
    column((r) => r.holdKind),
    column((r) => r.holdEndpoint ?? null),
    column((r) => r.sentPayload),
    now,
    tx.owner,
  ]);
  return new Set(rows.map((row) => row.id));
}
