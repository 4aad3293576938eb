import type { Dialect } from '../../../db/sql/dialect';
import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';

// A send's messages rows: the one its public id names and its variants (a localized send, the
// later parts of a sendAtLocal), counted as one send.
const OF_SEND = (d: Dialect, main: string) =>
  `(SELECT ${d.typed(main, 'bigint')} UNION ALL SELECT message_id FROM notification_message_variants WHERE main_message_id = ${main})`;

/** What of a send was queued before a fan-out: its last delivery and the latest time one was due (through deliveries_message). */
const queuedBefore = statement<{ lastId: number | null; lastDue: number | null }>(
  (d) => `SELECT max(id) AS "lastId", max(next_attempt_at) AS "lastDue" FROM deliveries WHERE message_id IN ${OF_SEND(d, '$1')}`,
  { numbers: ['lastId', 'lastDue'] },
);
// The n-th pending delivery the fan-out wrote (id order: the order it wrote them) is due
// `(n - 1) · 60,000 / perMinute` ms after the start, rounded down: evenly, in the rows themselves,
// so every instance's claim (`next_attempt_at <= now`) keeps to it and a restart changes nothing.
const spread = statement(
  (d) => `UPDATE deliveries SET next_attempt_at = ${d.typed('$3', 'bigint')} + CAST(((r.n - 1) * 60000) / ${d.typed('$4', 'bigint')} AS ${d.name === 'sqlite' ? 'INTEGER' : 'bigint'})
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM deliveries WHERE message_id IN ${OF_SEND(d, '$1')} AND id > $2 AND status = 'pending') r
   WHERE deliveries.id = r.id`,
);
const mark = statement('INSERT INTO throttled_sends (message_id, per_minute) VALUES ($1, $2) ON CONFLICT DO NOTHING');
// Sends with a delivery waiting past its time: a restart after a stop (nothing claimed meanwhile).
const behind = statement<{ messageId: number; perMinute: number }>(
  (d) => `SELECT t.message_id AS "messageId", t.per_minute AS "perMinute" FROM throttled_sends t
   WHERE EXISTS (SELECT 1 FROM deliveries WHERE message_id IN ${OF_SEND(d, 't.message_id')} AND status = 'pending' AND next_attempt_at < $1)`,
  { numbers: ['messageId', 'perMinute'] },
);
// What is left of a send, in its order, again at the rate from now: the n-th pending delivery no
// earlier than now + (n - 1)·60,000 / perMinute ms (one already later keeps its time).
const resume = statement(
  (d) => `UPDATE deliveries SET next_attempt_at = ${d.greatest('deliveries.next_attempt_at', `${d.typed('$2', 'bigint')} + CAST(((r.n - 1) * 60000) / ${d.typed('$3', 'bigint')} AS ${d.name === 'sqlite' ? 'INTEGER' : 'bigint'})`)}
    FROM (SELECT id, row_number() OVER (ORDER BY next_attempt_at, id) AS n FROM deliveries WHERE message_id IN ${OF_SEND(d, '$1')} AND status = 'pending') r
   WHERE deliveries.id = r.id`,
);

/** A throttled send's deliveries given their due times (throttle.ts decides the start and the rate). */
export const throttledSendsRepository = repository((sql: Sql) => ({
  /** The send's last delivery id and latest due time so far (nulls: none yet). */
  queuedBefore: (mainMessageId: number): Promise<{ lastId: number | null; lastDue: number | null } | undefined> => sql.one(queuedBefore, [mainMessageId]),
  /** Spreads the send's pending deliveries after `afterId` from `start`, `perMinute` a minute; answers how many. */
  spread: (mainMessageId: number, afterId: number, start: number, perMinute: number): Promise<number> => sql.run(spread, [mainMessageId, afterId, start, perMinute]),
  /** Remembers that the send is throttled (a later part's fan-out finds it there already). */
  mark: async (mainMessageId: number, perMinute: number): Promise<void> => void (await sql.run(mark, [mainMessageId, perMinute])),
  /** Throttled sends with a pending delivery due before `now`. */
  behind: (now: number): Promise<{ messageId: number; perMinute: number }[]> => sql.all(behind, [now]),
  /** Spreads the send's pending deliveries again from `now`; answers how many rows it went through. */
  resume: (mainMessageId: number, now: number, perMinute: number): Promise<number> => sql.run(resume, [mainMessageId, now, perMinute]),
}));
