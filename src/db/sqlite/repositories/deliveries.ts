import type { Db } from '../database';
import { promised } from '../promised';
import { tokensStatements } from './tokens';
import { webhookEventStatements } from './webhook-events';
import type { ClaimedDelivery } from '../../../modules/delivery/worker/delivery.routing';
import type { DeliveryResult, RecordedOutcomes, PausedChannel, DeliveryRepository } from '../../../modules/delivery/worker/delivery.repository';
import type { WebhookEventInput } from '../../../modules/webhooks/delivery-events';

const CLAIMED_COLUMNS = `d.id, d.app_id AS appId, d.message_id AS messageId, d.device_id AS deviceId, d.activity_id AS activityId,
  d.attempts, d.next_attempt_at AS nextAttemptAt, m.kind, m.content, m.sent_body AS sentBody, dev.platform, dev.end_user_id AS endUserId, t.id AS tokenId, t.kind AS tokenKind, t.value AS tokenValue,
  t.device_id AS tokenDeviceId, t.activity_id AS tokenActivityId, t.environment, t.state AS tokenState, t.invalid_reason AS invalidReason`;

/**
 * The worker's statements on the outbox, prepared once. Claiming is one UPDATE … RETURNING, so
 * two claims can never take the same row; outcomes are written many per transaction.
 */
function deliveryStatements(db: Db) {
  const client = db.$client;
  // Ordered by next_attempt_at (then rowid, inside the index) so the claim walks the
  // deliveries_due index instead of sorting every due row of a large fan-out.
  const claimIds = client.query<{ id: number }, [number, number, number]>(
    `UPDATE deliveries SET status = 'sending', updated_at = ?1
      WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?2 ORDER BY next_attempt_at LIMIT ?3)
      RETURNING id`,
  );
  const claimedRows = client.query<ClaimedDelivery, [string]>(
    `SELECT ${CLAIMED_COLUMNS} FROM deliveries d
       JOIN messages m ON m.id = d.message_id
       LEFT JOIN devices dev ON dev.id = d.device_id
       LEFT JOIN tokens t ON t.id = d.token_id
      WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id`,
  );
  const update = client.query(
    `UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, provider = COALESCE(?, provider), provider_id = ?,
            reason = ?, hold_kind = ?, sent_payload = COALESCE(?, sent_payload), updated_at = ?
      WHERE id = ? AND status = 'sending'`,
  );
  // The token may have been reported between the claim and now: then the delivery goes to it at once.
  // (SET sees the old row, so the lookup is written out twice.)
  const activityToken = `(SELECT id FROM tokens WHERE activity_id = ?1 AND device_id = ?2 AND kind = 'apns_activity' AND state = 'active')`;
  const hold = client.query<never, [string, string, string | null, number, number]>(
    `UPDATE deliveries SET token_id = ${activityToken},
            status = CASE WHEN ${activityToken} IS NULL THEN 'held' ELSE 'pending' END,
            reason = CASE WHEN ${activityToken} IS NULL THEN ?3 END,
            hold_kind = CASE WHEN ${activityToken} IS NULL THEN 'token' END, updated_at = ?4
      WHERE id = ?5 AND status = 'sending'`,
  );
  // Only attempts answered with a retry: the row keeps the last one (see schema.ts deliveryAttempts).
  const retried = client.query(
    `INSERT OR REPLACE INTO delivery_attempts (delivery_id, attempt, at, provider, provider_id, reason) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  // Latest wins (outbox.ts supersede): an update that was in flight when a newer update or end of
  // its activity was queued for the device, and comes back to wait (a retry, a down channel), would
  // otherwise go after the newer one. APNs ignores older timestamps; an Android phone would show it.
  // A newer message's deliveries were written after this one's, so `newer.id > id` makes the lookup a
  // range of deliveries_activity (activity_id, rowid): only the activity's later deliveries are read.
  const supersedeStale = client.query<{ appId: string; provider: string | null }, [number, number]>(
    `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', hold_kind = NULL, updated_at = ?1
      WHERE id = ?2 AND status IN ('pending', 'held')
        AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'
        AND EXISTS (SELECT 1 FROM deliveries newer JOIN messages m ON m.id = newer.message_id
                     WHERE newer.activity_id = deliveries.activity_id AND newer.id > deliveries.id
                       AND newer.device_id = deliveries.device_id AND newer.message_id > deliveries.message_id
                       AND m.kind IN ('la_update', 'la_end'))
      RETURNING app_id AS appId, provider`,
  );
  const setMessageBody = client.query<never, [string, number]>(`UPDATE messages SET sent_body = ? WHERE id = ? AND sent_body IS NULL`);
  const tokens = tokensStatements(db);
  const webhookEvents = webhookEventStatements(db);
  const pause = {
    apns: client.query(`UPDATE apps SET apns_paused_reason = ?, updated_at = ? WHERE id = ? AND apns_sealed IS ? AND apns_paused_reason IS NULL`),
    fcm: client.query(`UPDATE apps SET fcm_paused_reason = ?, updated_at = ? WHERE id = ? AND fcm_sealed IS ? AND fcm_paused_reason IS NULL`),
  };
  const resume = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND (
        (hold_kind = 'apns_paused' AND app_id IN (SELECT id FROM apps WHERE apns_paused_reason IS NULL)) OR
        (hold_kind = 'fcm_paused' AND app_id IN (SELECT id FROM apps WHERE fcm_paused_reason IS NULL)))`,
  );
  const anyParked = client.query<{ one: number }, []>(
    `SELECT 1 AS one FROM deliveries WHERE status = 'held' AND hold_kind IN ('apns_paused', 'fcm_paused') LIMIT 1`,
  );
  const release = client.query(
    `UPDATE deliveries SET status = 'pending', updated_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND status = 'sending'`,
  );
  const recover = client.query(`UPDATE deliveries SET status = 'pending', updated_at = ? WHERE status = 'sending'`);
  const releaseUnheld = client.query(
    `UPDATE deliveries SET status = 'pending', updated_at = ? WHERE status = 'sending' AND id NOT IN (SELECT value FROM json_each(?))`,
  );

  return {
    /** Takes up to `limit` due deliveries (marking them `sending`) and returns them joined for routing. */
    claim(now: number, limit: number): ClaimedDelivery[] {
      return client.transaction(() => {
        const ids = claimIds.all(now, now, limit);
        return ids.length === 0 ? [] : claimedRows.all(JSON.stringify(ids.map((r) => r.id)));
      }).immediate();
    },

    /**
     * Applies the outcomes' effects (outcome-effects.ts) in one transaction. Returns the channels
     * this paused (not those already paused), and the updates it superseded instead of putting them
     * back to wait (for islet_deliveries_total).
     */
    record(results: DeliveryResult[], now: number): RecordedOutcomes {
      return client.transaction(() => {
        const paused: PausedChannel[] = [];
        const superseded: RecordedOutcomes['superseded'] = [];
        const failed: WebhookEventInput[] = [];
        const invalidated: WebhookEventInput[] = [];
        for (const r of results) {
          if (r.holdFor !== undefined) hold.run(r.holdFor.activityId, r.holdFor.deviceId, r.reason, now, r.id);
          else {
            const written = update.run(r.status, r.attempts, r.nextAttemptAt, r.provider, r.providerId, r.reason, r.holdKind, r.sentPayload, now, r.id).changes > 0;
            if (written && r.recordAttempt) retried.run(r.id, r.attempts, now, r.provider, r.providerId, r.reason);
          }
          if (r.supersedeIfStale) {
            const stale = supersedeStale.get(now, r.id);
            if (stale) superseded.push(stale);
          }
          if (r.messageBody) setMessageBody.run(r.messageBody.body, r.messageBody.messageId);
          const t = r.invalidateToken;
          if (t && tokens.invalidate(t.tokenId, t.reason, now, t.since) && t.event) invalidated.push(t.event);
          const p = r.pauseChannel;
          if (p && pause[p.provider].run(p.reason, now, p.appId, p.sealed).changes > 0) paused.push(p);
          if (r.events) failed.push(...r.events);
        }
        // Webhooks (delivery.failed, device.token_invalidated), committed with the outcomes.
        webhookEvents.emitAll(failed.concat(invalidated), now);
        return { paused, superseded };
      }).immediate();
    },

    /** Deliveries parked on a channel that is no longer paused become due now. */
    releaseResumed(now: number): number {
      return resume.run(now).changes;
    },

    hasParked(): boolean {
      return anyParked.get() !== null;
    },

    /** Gives claimed deliveries back (shutting down before their outcome was known). */
    release(ids: number[], now: number): number {
      return ids.length === 0 ? 0 : release.run(now, JSON.stringify(ids)).changes;
    },

    /** This process's claims other than `held` go back to the queue (one process serves the file: every claim is its own). */
    releaseUnheld(held: number[], now: number): number {
      return releaseUnheld.run(now, JSON.stringify(held)).changes;
    },

    /** At start: whatever a previous process claimed and did not finish is due again (at least once). */
    recoverSending(now: number): number {
      return recover.run(now).changes;
    },
  };
}

/** The repository over deliveryStatements: every method returns a Promise. */
export const deliveryRepository = (db: Db): DeliveryRepository => promised(deliveryStatements(db));
