import type { FailedAtEnqueue, NewDelivery, NewMessage, Superseded } from './outbox.types';

/** Deliveries of one message, for writeDeliveries. */
interface DeliveryGroup {
  messageId: number;
  activityId: string | null;
  rows: Iterable<NewDelivery>;
}
import type { Dialect } from '../../../db/sql/dialect';
import type { Param, Sql } from '../../../db/sql/sql';
import { oneOff, statement, valuesList } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

/**
 * Rows per INSERT of a large fan-out. SQLite: 100,000 deliveries are written in about half the
 * time one row a statement takes; PostgreSQL: fewer round trips (11 parameters a row, far under its
 * 65,535 per statement).
 */
const INSERT_BATCH = { sqlite: 100, postgres: 500 } as const;
/** Messages per INSERT of several at once on PostgreSQL (a start's content is a few hundred bytes). */
const MESSAGE_BATCH = 1000;

const insertSql = (rows: number) =>
  `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, hold_kind, attempts, next_attempt_at, reason, created_at, updated_at)
   VALUES ${valuesList(rows, 11, 0, (p) => `(${p.slice(0, 7).join(', ')}, 0, ${p.slice(7).join(', ')})`)}`;

const insertMessage = statement<{ id: number }>(
  'INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at, sent_body) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
  { numbers: ['id'] },
);
// PostgreSQL: a batch of messages (one per activity of a start to many end users) in one round
// trip. Ids come from one sequence in insertion order, which follows t.n: sorted, they are in order.
const insertMessagesPostgres = statement<{ id: number }>(
  `INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at, sent_body)
   SELECT $1, t.kind, t.activity_id, t.content, t.template_slug, $2, t.sent_body
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS t(kind, activity_id, content, template_slug, sent_body, n)
    ORDER BY t.n
   RETURNING id`,
  { numbers: ['id'] },
);
const insertOne = statement(insertSql(1));
const insertMany = { sqlite: statement(insertSql(INSERT_BATCH.sqlite)), postgres: statement(insertSql(INSERT_BATCH.postgres)) };
const failedOf = statement<FailedAtEnqueue>(
  `SELECT d.id, d.app_id AS "appId", m.kind, d.activity_id AS "activityId", d.device_id AS "deviceId", dev.end_user_id AS "endUserId", dev.platform, d.reason
     FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id
    WHERE d.message_id = $1 AND d.status = 'failed'`,
  { numbers: ['id'] },
);
/**
 * Latest wins: supersedes the activity's updates not sent yet to those devices (see Outbox.enqueue),
 * returning each's app and provider. `gate`: a further condition (` AND …`), e.g. that the activity
 * row was written (optimistic-update.repository.ts). The ids come from one lookup per status, so each
 * walks its own small partial index; one statement rather than one per status: each costs more to
 * run than its (mostly empty) lookup.
 */
export const supersedeSql = (d: Dialect, now: string, activityId: string, deviceIds: string, gate = '') =>
  `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', hold_kind = NULL, updated_at = ${now}
    WHERE id IN (SELECT id FROM deliveries WHERE activity_id = ${activityId} AND status = 'pending'
                 UNION ALL SELECT id FROM deliveries WHERE activity_id = ${activityId} AND status = 'held')
      AND ${d.inList('device_id', deviceIds)}
      AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'${gate}
    RETURNING app_id AS "appId", provider`;
const supersede = statement<Superseded>((d) => supersedeSql(d, '$1', '$2', '$3'));
// PostgreSQL: a follow-up's queueing as one statement, one round trip instead of three. Every part
// sees the table as it was before the statement, so the supersede never touches the new deliveries.
const queueFollowUpPostgres = statement<{ id: number; superseded: string }>(
  (d) => `WITH superseded AS (${supersedeSql(d, '$6', '$3', '$7')}),
   message AS (INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at, sent_body) VALUES ($1, $2, $3, $4, $5, $6, $12) RETURNING id),
   queued AS (
     INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, hold_kind, attempts, next_attempt_at, reason, created_at, updated_at)
     SELECT $1, message.id, t.device_id, $3, t.token_id, t.status, t.hold_kind, 0, $6, t.reason, $6, $6
       FROM message, unnest($7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY AS t(device_id, token_id, status, hold_kind, reason, n)
      ORDER BY t.n)
   SELECT message.id, (SELECT coalesce(json_agg(superseded), '[]') FROM superseded)::text AS superseded FROM message`,
  { numbers: ['id'] },
);
const deleteDeliveries = statement(`DELETE FROM deliveries WHERE status IN ('delivered', 'failed', 'dropped', 'superseded') AND updated_at < $1`);
const deleteMessages = statement('DELETE FROM messages WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = messages.id)');
const releaseHeld = statement(
  `UPDATE deliveries SET status = 'pending', token_id = $1, reason = NULL, hold_kind = NULL, next_attempt_at = $2, updated_at = $2
    WHERE activity_id = $3 AND device_id = $4 AND status = 'held' AND hold_kind = 'token'`,
);

/** Queueing messages and their deliveries (modules/delivery/outbox/outbox.ts holds what queueing decides). */
export const outboxRepository = repository((sql: Sql) => {
  const dialect = sql.dialect.name;
  /**
   * Writes one delivery per row of each group, due now (or at its `dueAt`), of the group's message. Rows may be streamed
   * from a query (a large send): written as they come, INSERT_BATCH at a time. Returns how many were written.
   */
  const writeDeliveries = async (appId: string, groups: Iterable<DeliveryGroup>, now: number): Promise<number> => {
    const size = INSERT_BATCH[dialect];
    let params: Param[] = [];
    let count = 0;
    let written = 0;
    for (const group of groups) {
      for (const d of group.rows) {
        params.push(appId, group.messageId, d.deviceId, group.activityId, d.tokenId, d.status, d.holdKind, d.dueAt ?? now, d.reason, now, now);
        if (++count < size) continue;
        await sql.run(insertMany[dialect], params);
        written += count;
        params = [];
        count = 0;
      }
    }
    if (count === 0) return written;
    // The rest: SQLite one prepared row at a time (no statement to prepare per size), PostgreSQL in one round trip.
    if (dialect === 'sqlite') for (let i = 0; i < params.length; i += 11) await sql.run(insertOne, params.slice(i, i + 11));
    else await sql.run(oneOff(insertSql(count)), params);
    return written + count;
  };
  /** Writes one delivery of the message per row, due now (see writeDeliveries). */
  const insertDeliveries = async (message: { appId: string; id: number; activityId: string | null }, rows: Iterable<NewDelivery>, now: number): Promise<number> =>
    writeDeliveries(message.appId, [{ messageId: message.id, activityId: message.activityId, rows }], now);
  return {
    /** Writes a message; returns its id. */
    insertMessage: async (appId: string, kind: string, activityId: string | null, content: string, templateSlug: string | null, now: number): Promise<number> => (await sql.one(insertMessage, [appId, kind, activityId, content, templateSlug, now, null]))!.id,

    insertDeliveries,

    /**
     * Writes several messages of one app, each with its deliveries, due now: a start to many end
     * users. SQLite: a prepared row at a time (in process, as cheap); PostgreSQL: the messages in
     * one statement a batch of MESSAGE_BATCH, their deliveries INSERT_BATCH rows a statement.
     * Returns the messages' ids in order.
     */
    async insertMessagesWithDeliveries(appId: string, list: readonly NewMessage[], now: number): Promise<number[]> {
      const ids: number[] = [];
      if (dialect === 'sqlite') {
        for (const m of list) ids.push((await sql.one(insertMessage, [appId, m.kind, m.activityId, m.content, m.templateSlug, now, m.sentBody]))!.id);
      } else {
        for (let i = 0; i < list.length; i += MESSAGE_BATCH) {
          const part = list.slice(i, i + MESSAGE_BATCH);
          const column = <K extends keyof NewMessage>(key: K) => part.map((m) => m[key]);
          const rows = await sql.all(insertMessagesPostgres, [appId, now, column('kind'), column('activityId'), column('content'), column('templateSlug'), column('sentBody')]);
          ids.push(...rows.map((r) => r.id).sort((a, b) => a - b));
        }
      }
      await writeDeliveries(appId, list.map((m, i) => ({ messageId: ids[i]!, activityId: m.activityId, rows: m.deliveries })), now);
      return ids;
    },

    /**
     * An activity's update or end: supersedes its updates not sent yet to the rows' devices (one row
     * per superseded delivery returned), then writes the message and one delivery per row (one end user's devices,
     * a few), due now. On PostgreSQL one statement. `sentBody`: the APNs body the request already
     * rendered to check its size, kept as the message's (`messages.sent_body`) so the worker sends it
     * as it is rather than rendering it again.
     */
    async queueFollowUp(message: { appId: string; kind: string; activityId: string; content: string; templateSlug: string; sentBody: string | null }, rows: readonly NewDelivery[], now: number): Promise<{ messageId: number; superseded: Superseded[] }> {
      if (dialect === 'sqlite') {
        const superseded = await sql.all(supersede, [now, message.activityId, rows.map((r) => r.deviceId)]);
        const messageId = (await sql.one(insertMessage, [message.appId, message.kind, message.activityId, message.content, message.templateSlug, now, message.sentBody]))!.id;
        await insertDeliveries({ ...message, id: messageId }, rows, now);
        return { messageId, superseded };
      }
      const column = <K extends keyof NewDelivery>(key: K) => rows.map((r) => r[key]) as (string | number | null)[];
      const params = [message.appId, message.kind, message.activityId, message.content, message.templateSlug, now];
      const row = (await sql.one(queueFollowUpPostgres, [...params, column('deviceId'), column('tokenId'), column('status'), column('holdKind'), column('reason'), message.sentBody]))!;
      return { messageId: row.id, superseded: JSON.parse(row.superseded) as Superseded[] };
    },

    /** The message's deliveries that failed at once. */
    failedOf: (messageId: number): Promise<FailedAtEnqueue[]> => sql.all(failedOf, [messageId]),
    /** Retention: deletes finished deliveries last changed before `before`, then the messages older than that nobody refers to. */
    prune: async (before: number): Promise<{ deliveries: number; messages: number }> => ({ deliveries: await sql.run(deleteDeliveries, [before]), messages: await sql.run(deleteMessages, [before]) }),
    /** Makes the deliveries held for an activity instance's token due now, at that token; returns how many. */
    releaseHeld: async (target: { activityId: string; deviceId: string; tokenId: number }, now: number): Promise<number> => sql.run(releaseHeld, [target.tokenId, now, target.activityId, target.deviceId]),
  };
});

export type OutboxRepository = ReturnType<typeof outboxRepository>;
