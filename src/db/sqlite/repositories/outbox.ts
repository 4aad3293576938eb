import type { Db } from '../database';
import { promised } from '../promised';
import type { FailedAtEnqueue, NewDelivery, OutboxRepository } from '../../../modules/delivery/outbox/outbox.repository';

/** Rows per INSERT of a large fan-out: 100,000 deliveries are written in about half the time one row a statement takes. */
const INSERT_BATCH = 100;

const insertSql = (rows: number) =>
  `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, hold_kind, attempts, next_attempt_at, reason, created_at, updated_at)
   VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)').join(', ')}`;

/** The statements that queue messages and their deliveries (outbox.ts holds what queueing decides). */
function outboxStatements(db: Db) {
  const client = db.$client;
  const insertMessage = client.query<{ id: number }, [string, string, string | null, string, string, number]>(
    'INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
  );
  const insertOne = client.query<never, (string | number | null)[]>(insertSql(1));
  const insertMany = client.query<never, (string | number | null)[]>(insertSql(INSERT_BATCH));
  const failedOf = client.query<FailedAtEnqueue, [number]>(
    `SELECT d.id, d.app_id AS appId, m.kind, d.activity_id AS activityId, d.device_id AS deviceId, dev.end_user_id AS endUserId, dev.platform, d.reason
       FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id
      WHERE d.message_id = ? AND d.status = 'failed'`,
  );
  // The ids come from one lookup per status, so each walks its own small partial index; one
  // statement rather than one per status: each costs more to run than its (mostly empty) lookup.
  const supersede = client.query<{ appId: string; provider: string | null }, [number, string, string]>(
    `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', hold_kind = NULL, updated_at = ?1
      WHERE id IN (SELECT id FROM deliveries WHERE activity_id = ?2 AND status = 'pending'
                   UNION ALL SELECT id FROM deliveries WHERE activity_id = ?2 AND status = 'held')
        AND device_id IN (SELECT value FROM json_each(?3))
        AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'
      RETURNING app_id AS appId, provider`,
  );
  const deleteDeliveries = client.query(`DELETE FROM deliveries WHERE status IN ('delivered', 'failed', 'dropped', 'superseded') AND updated_at < ?`);
  const deleteMessages = client.query(`DELETE FROM messages WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = messages.id)`);
  const releaseHeld = client.query<never, [number, number, string, string]>(
    `UPDATE deliveries SET status = 'pending', token_id = ?1, reason = NULL, hold_kind = NULL, next_attempt_at = ?2, updated_at = ?2
      WHERE activity_id = ?3 AND device_id = ?4 AND status = 'held' AND hold_kind = 'token'`,
  );

  return {
    /** Writes a message; returns its id. */
    insertMessage(appId: string, kind: string, activityId: string | null, content: string, templateSlug: string, now: number): number {
      return insertMessage.get(appId, kind, activityId, content, templateSlug, now)!.id;
    },

    /**
     * Writes one delivery of the message per row, due now. Rows may be streamed from a query (a large
     * send): written as they come, INSERT_BATCH at a time. Returns how many were written.
     */
    insertDeliveries(message: { appId: string; id: number; activityId: string | null }, rows: Iterable<NewDelivery>, now: number): number {
      const values = (d: NewDelivery) => [message.appId, message.id, d.deviceId, message.activityId, d.tokenId, d.status, d.holdKind, now, d.reason, now, now];
      let batch: NewDelivery[] = [];
      let written = 0;
      for (const row of rows) {
        if (batch.push(row) < INSERT_BATCH) continue;
        insertMany.run(...batch.flatMap(values));
        written += batch.length;
        batch = [];
      }
      for (const row of batch) insertOne.run(...values(row));
      return written + batch.length;
    },

    /** The message's deliveries that failed at once. */
    failedOf: (messageId: number): FailedAtEnqueue[] => failedOf.all(messageId),

    /** Supersedes the activity's updates not sent yet to these devices; returns one row per superseded delivery. */
    supersedeUpdates: (activityId: string, deviceIds: readonly string[], now: number): { appId: string; provider: string | null }[] =>
      supersede.all(now, activityId, JSON.stringify(deviceIds)),

    /** Retention: deletes finished deliveries last changed before `before`, then the messages older than that nobody refers to. */
    prune: (before: number): { deliveries: number; messages: number } => ({
      deliveries: deleteDeliveries.run(before).changes,
      messages: deleteMessages.run(before).changes,
    }),

    /** Makes the deliveries held for an activity instance's token due now, at that token; returns how many. */
    releaseHeld: (target: { activityId: string; deviceId: string; tokenId: number }, now: number): number =>
      releaseHeld.run(target.tokenId, now, target.activityId, target.deviceId).changes,
  };
}

/** The repository over outboxStatements: every method returns a Promise. */
export const outboxRepository = (db: Db): OutboxRepository => promised(outboxStatements(db));
