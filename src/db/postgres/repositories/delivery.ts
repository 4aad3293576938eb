import type { ClaimedDelivery } from '../../../modules/delivery/worker/delivery.routing';
import type { WebhookEventInput } from '../../../modules/webhooks/delivery-events';
import type { DeliveryRepository, PausedChannel, RecordedOutcomes } from '../../../modules/delivery/worker/delivery.repository';
import { orphaned } from '../claims';
import { all, one, run, type PgScope } from '../query';
import { tokenStatementsPg } from './tokens';
import { webhookEventStatementsPg } from './webhook-events';

const CLAIMED_COLUMNS = `d.id, d.app_id AS "appId", d.message_id AS "messageId", d.device_id AS "deviceId", d.activity_id AS "activityId",
  d.attempts, d.next_attempt_at AS "nextAttemptAt", m.kind, m.content, m.sent_body AS "sentBody", dev.platform, dev.end_user_id AS "endUserId", t.id AS "tokenId", t.kind AS "tokenKind",
  t.value AS "tokenValue", t.device_id AS "tokenDeviceId", t.activity_id AS "tokenActivityId", t.environment, t.state AS "tokenState", t.invalid_reason AS "invalidReason"`;

/** The statement that decides a held delivery's token (written out twice: SET sees the old row). */
const ACTIVITY_TOKEN = `(SELECT id FROM tokens WHERE activity_id = $1 AND device_id = $2 AND kind = 'apns_activity' AND state = 'active')`;

/**
 * The worker's statements on PostgreSQL (see modules/delivery/delivery.repository.ts). A claim is one
 * statement: the due rows are locked with SKIP LOCKED, so claims running side by side never take
 * the same row and never wait on each other. A claim names its instance (`claimed_by`, claims.ts):
 * outcomes and releases write only rows still claimed by this instance, so one whose claim was
 * taken over after its lease ran out (a paused or cut-off process coming back) writes nothing.
 */
export function deliveryPg({ q, atomic, owner }: PgScope): DeliveryRepository {
  const mine = (param: string) => `status = 'sending' AND claimed_by IS NOT DISTINCT FROM ${param}`;
  return {
    claim: (now, limit) =>
      all<ClaimedDelivery>(
        q,
        `WITH claimed AS (
           UPDATE deliveries SET status = 'sending', claimed_by = $3, updated_at = $1
            WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
            RETURNING id)
         SELECT ${CLAIMED_COLUMNS} FROM deliveries d
           JOIN claimed c ON c.id = d.id
           JOIN messages m ON m.id = d.message_id
           LEFT JOIN devices dev ON dev.id = d.device_id
           LEFT JOIN tokens t ON t.id = d.token_id
          ORDER BY d.id`,
        [now, limit, owner],
        ['id', 'messageId', 'nextAttemptAt', 'tokenId'],
      ),

    record: (results, now) =>
      atomic(async (c) => {
        const tokens = tokenStatementsPg(c);
        const paused: PausedChannel[] = [];
        const superseded: RecordedOutcomes['superseded'] = [];
        const failed: WebhookEventInput[] = [];
        const invalidated: WebhookEventInput[] = [];
        for (const r of results) {
          if (r.holdFor !== undefined)
            await run(
              c,
              `UPDATE deliveries SET token_id = ${ACTIVITY_TOKEN},
                      status = CASE WHEN ${ACTIVITY_TOKEN} IS NULL THEN 'held' ELSE 'pending' END,
                      reason = CASE WHEN ${ACTIVITY_TOKEN} IS NULL THEN $3 END,
                      hold_kind = CASE WHEN ${ACTIVITY_TOKEN} IS NULL THEN 'token' END, updated_at = $4, claimed_by = NULL
                WHERE id = $5 AND ${mine('$6')}`,
              [r.holdFor.activityId, r.holdFor.deviceId, r.reason, now, r.id, owner],
            );
          else {
            const written =
              (await run(
                c,
                `UPDATE deliveries SET status = $1, attempts = $2, next_attempt_at = $3, provider = COALESCE($4, provider), provider_id = $5,
                        reason = $6, hold_kind = $11, sent_payload = COALESCE($7, sent_payload), updated_at = $8, claimed_by = NULL
                  WHERE id = $9 AND ${mine('$10')}`,
                [r.status, r.attempts, r.nextAttemptAt, r.provider, r.providerId, r.reason, r.sentPayload, now, r.id, owner, r.holdKind],
              )) > 0;
            if (written && r.recordAttempt)
              await run(
                c,
                `INSERT INTO delivery_attempts (delivery_id, attempt, at, provider, provider_id, reason) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, provider = excluded.provider,
                   provider_id = excluded.provider_id, reason = excluded.reason`,
                [r.id, r.attempts, now, r.provider, r.providerId, r.reason],
              );
          }
          if (r.supersedeIfStale) {
            const stale = await one<{ appId: string; provider: string | null }>(
              c,
              `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', hold_kind = NULL, updated_at = $1
                WHERE id = $2 AND status IN ('pending', 'held')
                  AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'
                  AND EXISTS (SELECT 1 FROM deliveries newer JOIN messages m ON m.id = newer.message_id
                               WHERE newer.activity_id = deliveries.activity_id AND newer.id > deliveries.id
                                 AND newer.device_id = deliveries.device_id AND newer.message_id > deliveries.message_id
                                 AND m.kind IN ('la_update', 'la_end'))
                RETURNING app_id AS "appId", provider`,
              [now, r.id],
            );
            if (stale) superseded.push(stale);
          }
          if (r.messageBody) await run(c, 'UPDATE messages SET sent_body = $1 WHERE id = $2 AND sent_body IS NULL', [r.messageBody.body, r.messageBody.messageId]);
          const t = r.invalidateToken;
          if (t && (await tokens.invalidate(t.tokenId, t.reason, now, t.since)) && t.event) invalidated.push(t.event);
          const p = r.pauseChannel;
          if (
            p &&
            (await run(
              c,
              `UPDATE apps SET ${p.provider}_paused_reason = $1, updated_at = $2 WHERE id = $3 AND ${p.provider}_sealed IS NOT DISTINCT FROM $4 AND ${p.provider}_paused_reason IS NULL`,
              [p.reason, now, p.appId, p.sealed],
            )) > 0
          )
            paused.push(p);
          if (r.events) failed.push(...r.events);
        }
        await webhookEventStatementsPg(c).emitAll(failed.concat(invalidated), now);
        return { paused, superseded };
      }),

    releaseResumed: (now) =>
      run(
        q,
        `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1
          WHERE status = 'held' AND (
            (hold_kind = 'apns_paused' AND app_id IN (SELECT id FROM apps WHERE apns_paused_reason IS NULL)) OR
            (hold_kind = 'fcm_paused' AND app_id IN (SELECT id FROM apps WHERE fcm_paused_reason IS NULL)))`,
        [now],
      ),

    hasParked: async () =>
      (await one(q, `SELECT 1 AS one FROM deliveries WHERE status = 'held' AND hold_kind IN ('apns_paused', 'fcm_paused') LIMIT 1`)) !== undefined,

    release: async (ids, now) =>
      ids.length === 0
        ? 0
        : run(q, `UPDATE deliveries SET status = 'pending', claimed_by = NULL, updated_at = $1 WHERE id = ANY($2::bigint[]) AND ${mine('$3')}`, [now, ids, owner]),

    releaseUnheld: (held, now) =>
      run(q, `UPDATE deliveries SET status = 'pending', claimed_by = NULL, updated_at = $1 WHERE ${mine('$3')} AND NOT (id = ANY($2::bigint[]))`, [now, held, owner]),

    recoverSending: (now) =>
      run(q, `UPDATE deliveries SET status = 'pending', claimed_by = NULL, updated_at = $1 WHERE status = 'sending' AND ${orphaned('claimed_by')}`, [now]),
  };
}
