import type { BroadcastEnvironment, BroadcastOp, BroadcastRow, ChannelState, NewBroadcast, OpKind } from './broadcasts.types';
import { claims } from '../../queue/claims';
import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

const COLUMNS = `id, app_id AS "appId", template_slug AS "templateSlug", attributes, content_state AS "contentState", storage_policy AS "storagePolicy",
  state, environment, channel_id AS "channelId", channel_state AS "channelState", channel_reason AS "channelReason", topic,
  last_timestamp AS "lastTimestamp", updates_sent AS "updatesSent", subscribers_started AS "subscribersStarted", held_reason AS "heldReason",
  end_reason AS "endReason", started_at AS "startedAt", ended_at AS "endedAt"`;
const ROW = { numbers: ['lastTimestamp', 'updatesSent', 'subscribersStarted', 'startedAt', 'endedAt'] };
const OP_COLUMNS = `id, broadcast_id AS "broadcastId", app_id AS "appId", kind, content, status, apns_done AS "apnsDone", fcm_done AS "fcmDone",
  attempts, next_attempt_at AS "nextAttemptAt", reason`;
const OP = { numbers: ['id', 'nextAttemptAt'], booleans: ['apnsDone', 'fcmDone'] };
const N = { numbers: ['n'] };

const insert = statement(
  `INSERT INTO broadcasts (id, app_id, template_slug, attributes, content_state, storage_policy, state, environment, channel_id, channel_state,
     topic, last_timestamp, started_at) VALUES ($1, $2, $3, $4, $5, $6, 'Active', $7, $8, $9, $10, $11, $12)`,
);
const find = statement<BroadcastRow>(`SELECT ${COLUMNS} FROM broadcasts WHERE app_id = $1 AND id = $2`, ROW);
const byId = statement<BroadcastRow>(`SELECT ${COLUMNS} FROM broadcasts WHERE id = $1`, ROW);
const page = statement<BroadcastRow>(
  (d) => `SELECT ${COLUMNS} FROM broadcasts WHERE app_id = $1 AND (${d.typed('$2', 'text')} IS NULL OR state = $2) ORDER BY started_at DESC, id DESC LIMIT $3 OFFSET $4`,
  ROW,
);
const count = statement<{ n: number }>((d) => `SELECT count(*) AS n FROM broadcasts WHERE app_id = $1 AND (${d.typed('$2', 'text')} IS NULL OR state = $2)`, N);
const channels = statement<{ n: number }>(`SELECT count(*) AS n FROM broadcasts WHERE app_id = $1 AND environment = $2 AND channel_state IN ('creating', 'open')`, N);
const known = statement<{ channelId: string }>(`SELECT channel_id AS "channelId" FROM broadcasts WHERE app_id = $1 AND environment = $2 AND channel_id IS NOT NULL`);
const running = statement<{ appId: string; plan: string; id: string }>(
  `SELECT b.app_id AS "appId", a.plan, b.id FROM broadcasts b JOIN apps a ON a.id = b.app_id WHERE b.state = 'Active' ORDER BY b.app_id, b.started_at`,
);
const active = statement<{ n: number }>(`SELECT count(*) AS n FROM broadcasts WHERE app_id = $1 AND state = 'Active'`, N);
const recordEvent = statement('UPDATE broadcasts SET content_state = $2, last_timestamp = $3 WHERE id = $1');
// Locked: concurrent updates through other instances count one after the other.
const priority10Sent = statement<{ sent: string | null }>((d) => `SELECT priority10_sent AS sent FROM broadcasts WHERE id = $1${d.forUpdate}`);
const spendPriority10 = statement('UPDATE broadcasts SET priority10_sent = $2 WHERE id = $1');
const end = statement(`UPDATE broadcasts SET state = 'Ended', end_reason = $2, ended_at = $3 WHERE id = $1 AND state = 'Active'`);
const setChannel = statement('UPDATE broadcasts SET channel_state = $2, channel_id = coalesce($3, channel_id), channel_reason = $4 WHERE id = $1');
const setHeld = statement('UPDATE broadcasts SET held_reason = $2 WHERE id = $1');
const counted = statement('UPDATE broadcasts SET updates_sent = updates_sent + 1 WHERE id = $1');
const subscribers = statement('UPDATE broadcasts SET subscribers_started = subscribers_started + $2 WHERE id = $1');
const insertOp = statement(
  `INSERT INTO broadcast_ops (broadcast_id, app_id, kind, content, status, next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, 'pending', $5, $6, $6)`,
);
const supersede = statement(
  (d) => `UPDATE broadcast_ops SET status = 'superseded', reason = 'superseded by a newer event', updated_at = $2
    WHERE broadcast_id = $1 AND status = 'pending' AND kind = 'update' AND apns_done = ${d.bool(false)} AND fcm_done = ${d.bool(false)} AND attempts = 0`,
);
// The first unfinished step of each broadcast, when it is due: steps of one broadcast go in order.
const FIRST_DUE = `status = 'pending' AND next_attempt_at <= $1
   AND id = (SELECT min(id) FROM broadcast_ops WHERE broadcast_id = o.broadcast_id AND status = 'pending')`;
const dueSqlite = statement<BroadcastOp>(`SELECT ${OP_COLUMNS} FROM broadcast_ops o WHERE ${FIRST_DUE} ORDER BY next_attempt_at, id LIMIT $2`, OP);
// PostgreSQL: a claim under this instance's lease (several instances on one database): a step
// claimed by another live instance is skipped, and so is every later step of its broadcast. This
// instance takes its own claims again: its worker never runs two rounds at once, so a claim of its
// own still pending is one a failed round left.
const duePostgres = statement<BroadcastOp>(
  (d) => `WITH claimed AS (
     UPDATE broadcast_ops SET updated_at = $1${claims.take(d, '$3')}
      WHERE id IN (SELECT id FROM broadcast_ops o WHERE ${FIRST_DUE}${claims.free(d, '$3')}
                    ORDER BY next_attempt_at, id LIMIT $2${d.skipLocked})
      RETURNING ${OP_COLUMNS})
   SELECT * FROM claimed ORDER BY "nextAttemptAt", id`,
  OP,
);
const saveOp = statement(
  (d) => `UPDATE broadcast_ops SET status = $2, apns_done = $3, fcm_done = $4, attempts = $5, next_attempt_at = $6, reason = $7, updated_at = $8${claims.end(d)} WHERE id = $1`,
);
const failPending = statement(
  `UPDATE broadcast_ops SET status = 'failed', reason = $2, updated_at = $3 WHERE broadcast_id = $1 AND status = 'pending' AND kind <> 'delete_channel'`,
);
const pruneOps = statement(`DELETE FROM broadcast_ops WHERE status IN ('done', 'failed', 'superseded') AND updated_at < $1`);
// A broadcast whose channel still exists at Apple stays: its deletion is still to come.
const pruneEnded = statement(`DELETE FROM broadcasts WHERE state = 'Ended' AND ended_at < $1 AND channel_state IN ('deleted', 'failed')`);
const opsOf = statement<BroadcastOp>(`SELECT ${OP_COLUMNS} FROM broadcast_ops WHERE broadcast_id = $1 ORDER BY id`, OP);

/** Broadcasts and their outbox (`broadcast_ops`), one implementation for both databases. */
export const broadcastsRepository = repository((sql: Sql) => {
  return {
    async insert(row: NewBroadcast): Promise<void> {
      await sql.run(insert, [row.id, row.appId, row.templateSlug, row.attributes, row.contentState, row.storagePolicy, row.environment, row.channelId, row.channelState, row.topic, row.lastTimestamp, row.startedAt]);
    },
    find: (appId: string, id: string): Promise<BroadcastRow | undefined> => sql.one(find, [appId, id]),
    byId: (id: string): Promise<BroadcastRow | undefined> => sql.one(byId, [id]),
    /** A page of the app's broadcasts, newest first, and how many match. */
    list: async (appId: string, state: 'Active' | 'Ended' | undefined, limit: number, offset: number): Promise<{ rows: BroadcastRow[]; total: number }> => ({
      rows: await sql.all(page, [appId, state ?? null, limit, offset]),
      total: (await sql.one(count, [appId, state ?? null]))!.n,
    }),
    /** Channels the app holds (or is making) at Apple in this environment, as Islet knows them. */
    channelCount: async (appId: string, environment: BroadcastEnvironment): Promise<number> => (await sql.one(channels, [appId, environment]))!.n,
    /** Every channel id Islet ever had for the app in this environment (orphans are the others). */
    knownChannels: async (appId: string, environment: BroadcastEnvironment): Promise<Set<string>> => new Set((await sql.all(known, [appId, environment])).map((r) => r.channelId)),
    activeCount: async (appId: string): Promise<number> => (await sql.one(active, [appId]))!.n,
    /** Apps with an Active broadcast, with their plans, and the ids of those broadcasts (the quota job). */
    async appsWithActive(): Promise<{ appId: string; plan: string; ids: string[] }[]> {
      const apps = new Map<string, { appId: string; plan: string; ids: string[] }>();
      for (const r of await sql.all(running)) {
        const app = apps.get(r.appId) ?? { appId: r.appId, plan: r.plan, ids: [] };
        apps.set(r.appId, app).get(r.appId)!.ids.push(r.id);
      }
      return [...apps.values()];
    },
    async recordEvent(id: string, contentState: string, lastTimestamp: number): Promise<void> {
      await sql.run(recordEvent, [id, contentState, lastTimestamp]);
    },
    /** The broadcast's sliding hour of priority-10 updates (live-activities/priority-budget), locked for the unit of work. */
    priority10Sent: async (id: string): Promise<string | null> => (await sql.one(priority10Sent, [id]))?.sent ?? null,
    spendPriority10: (id: string, window: string): Promise<number> => sql.run(spendPriority10, [id, window]),
    /** Ends an Active broadcast; false when it was not Active. */
    end: async (id: string, reason: string, endedAt: number): Promise<boolean> => (await sql.run(end, [id, reason, endedAt])) > 0,
    async setChannel(id: string, state: ChannelState, channelId: string | null, reason: string | null): Promise<void> {
      await sql.run(setChannel, [id, state, channelId, reason]);
    },
    async setHeld(id: string, reason: string | null): Promise<void> {
      await sql.run(setHeld, [id, reason]);
    },
    async countUpdateSent(id: string): Promise<void> {
      await sql.run(counted, [id]);
    },
    async addSubscribers(id: string, n: number): Promise<void> {
      await sql.run(subscribers, [id, n]);
    },
    async queue(op: { broadcastId: string; appId: string; kind: OpKind; content: string | null; dueAt: number }, now: number): Promise<void> {
      await sql.run(insertOp, [op.broadcastId, op.appId, op.kind, op.content, op.dueAt, now]);
    },
    /** Latest wins: the broadcast's updates not attempted yet are superseded; returns how many. */
    supersedeUpdates: (broadcastId: string, now: number): Promise<number> => sql.run(supersede, [broadcastId, now]),
    /**
     * The first unfinished step of each broadcast, when it is due (steps of one broadcast go in order).
     * PostgreSQL: claimed for this instance, so two sending instances never take the same step (saveOp ends the claim).
     */
    due: async (now: number, limit: number): Promise<BroadcastOp[]> => (sql.dialect.name === 'postgres' ? sql.all(duePostgres, [now, limit, sql.owner]) : sql.all(dueSqlite, [now, limit])),
    async saveOp(op: BroadcastOp, now: number): Promise<void> {
      await sql.run(saveOp, [op.id, op.status, op.apnsDone, op.fcmDone, op.attempts, op.nextAttemptAt, op.reason, now]);
    },
    /** The broadcast is over: its steps still pending fail with `reason` (the channel's deletion still runs). */
    async failPending(broadcastId: string, reason: string, now: number): Promise<void> {
      await sql.run(failPending, [broadcastId, reason, now]);
    },
    ops: (broadcastId: string): Promise<BroadcastOp[]> => sql.all(opsOf, [broadcastId]),
    /** Retention: finished steps last changed before `opsBefore`, and ended broadcasts (with their steps) ended before `endedBefore`. */
    prune: async (opsBefore: number, endedBefore: number): Promise<{ broadcastSteps: number; broadcasts: number }> => ({
      broadcastSteps: await sql.run(pruneOps, [opsBefore]),
      broadcasts: await sql.run(pruneEnded, [endedBefore]),
    }),
  };
});

export type BroadcastsRepository = ReturnType<typeof broadcastsRepository>;
