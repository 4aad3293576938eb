import type { FailedAtEnqueue, NewDelivery, OutboxRepository } from '../../../modules/delivery/outbox/outbox.repository';
import { all, one, run, valuesList, type PgScope } from '../query';

/** Rows per INSERT of a fan-out (11 parameters each, under PostgreSQL's 65,535 per statement). */
const INSERT_BATCH = 500;

/** Queueing messages and deliveries on PostgreSQL (see modules/delivery/outbox.repository.ts). */
export function outboxPg({ q }: PgScope): OutboxRepository {
  return {
    insertMessage: async (appId, kind, activityId, content, templateSlug, now) =>
      (await one<{ id: number }>(
        q,
        'INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
        [appId, kind, activityId, content, templateSlug, now],
        ['id'],
      ))!.id,

    async insertDeliveries(message, rows, now) {
      const values = (d: NewDelivery) => [message.appId, message.id, d.deviceId, message.activityId, d.tokenId, d.status, d.holdKind, now, d.reason, now, now];
      const write = (batch: NewDelivery[]) =>
        run(
          q,
          `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, hold_kind, attempts, next_attempt_at, reason, created_at, updated_at)
           VALUES ${valuesList(batch.length, 11, (p) => `(${p.slice(0, 7).join(', ')}, 0, ${p.slice(7).join(', ')})`)}`,
          batch.flatMap(values),
        );
      let batch: NewDelivery[] = [];
      let written = 0;
      for (const row of rows) {
        if (batch.push(row) < INSERT_BATCH) continue;
        written += await write(batch);
        batch = [];
      }
      if (batch.length > 0) written += await write(batch);
      return written;
    },

    failedOf: (messageId) =>
      all<FailedAtEnqueue>(
        q,
        `SELECT d.id, d.app_id AS "appId", m.kind, d.activity_id AS "activityId", d.device_id AS "deviceId", dev.end_user_id AS "endUserId", dev.platform, d.reason
           FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id
          WHERE d.message_id = $1 AND d.status = 'failed'`,
        [messageId],
        ['id'],
      ),

    supersedeUpdates: (activityId, deviceIds, now) =>
      all<{ appId: string; provider: string | null }>(
        q,
        `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', hold_kind = NULL, updated_at = $1
          WHERE id IN (SELECT id FROM deliveries WHERE activity_id = $2 AND status IN ('pending', 'held'))
            AND device_id = ANY($3::text[])
            AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'
          RETURNING app_id AS "appId", provider`,
        [now, activityId, [...deviceIds]],
      ),

    prune: async (before) => ({
      deliveries: await run(q, `DELETE FROM deliveries WHERE status IN ('delivered', 'failed', 'dropped', 'superseded') AND updated_at < $1`, [before]),
      messages: await run(q, 'DELETE FROM messages WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = messages.id)', [before]),
    }),

    releaseHeld: (target, now) =>
      run(
        q,
        `UPDATE deliveries SET status = 'pending', token_id = $1, reason = NULL, hold_kind = NULL, next_attempt_at = $2, updated_at = $2
          WHERE activity_id = $3 AND device_id = $4 AND status = 'held' AND hold_kind = 'token'`,
        [target.tokenId, now, target.activityId, target.deviceId],
      ),
  };
}
