import { WAITING_FOR_TOKEN } from '../../../modules/delivery/worker/delivery.routing';
import type { NewDelivery, OutboxRepository } from '../../../modules/delivery/outbox/outbox.repository';
import { all, one, run, valuesList, type PgScope } from '../query';

/** Rows per INSERT of a fan-out (10 parameters each, under PostgreSQL's 65,535 per statement). */
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
      const values = (d: NewDelivery) => [message.appId, message.id, d.deviceId, message.activityId, d.tokenId, d.status, now, d.reason, now, now];
      const write = (batch: NewDelivery[]) =>
        run(
          q,
          `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, attempts, next_attempt_at, reason, created_at, updated_at)
           VALUES ${valuesList(batch.length, 10, (p) => `(${p.slice(0, 6).join(', ')}, 0, ${p.slice(6).join(', ')})`)}`,
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
      all<{ id: number; reason: string | null }>(q, `SELECT id, reason FROM deliveries WHERE message_id = $1 AND status = 'failed'`, [messageId], ['id']),

    supersedeUpdates: (activityId, deviceIds, now) =>
      all<{ appId: string; provider: string | null }>(
        q,
        `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', updated_at = $1
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
        `UPDATE deliveries SET status = 'pending', token_id = $1, reason = NULL, next_attempt_at = $2, updated_at = $2
          WHERE activity_id = $3 AND device_id = $4 AND status = 'held' AND (reason IS NULL OR reason = $5)`,
        [target.tokenId, now, target.activityId, target.deviceId, WAITING_FOR_TOKEN],
      ),
  };
}
