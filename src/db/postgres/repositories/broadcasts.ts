import type { BroadcastOp, BroadcastRow, BroadcastsRepository } from '../../../modules/broadcasts/broadcasts.repository';
import { orphaned } from '../claims';
import { all, one, run, type PgScope } from '../query';

const COLUMNS = `id, app_id AS "appId", template_slug AS "templateSlug", attributes, content_state AS "contentState", storage_policy AS "storagePolicy",
  state, environment, channel_id AS "channelId", channel_state AS "channelState", channel_reason AS "channelReason", topic,
  last_timestamp AS "lastTimestamp", updates_sent AS "updatesSent", subscribers_started AS "subscribersStarted", held_reason AS "heldReason",
  end_reason AS "endReason", started_at AS "startedAt", ended_at AS "endedAt"`;
const NUMBERS = ['lastTimestamp', 'updatesSent', 'subscribersStarted', 'startedAt', 'endedAt'];
const OP_COLUMNS = `id, broadcast_id AS "broadcastId", app_id AS "appId", kind, content, status, apns_done AS "apnsDone", fcm_done AS "fcmDone",
  attempts, next_attempt_at AS "nextAttemptAt", reason`;
const OP_NUMBERS = ['id', 'nextAttemptAt'];

/** Broadcasts and their outbox (`broadcast_ops`) on PostgreSQL (see db/sqlite/repositories/broadcasts.ts). */
export function broadcastsPg({ q, owner }: PgScope): BroadcastsRepository {
  const rows = (text: string, params: unknown[]) => all<BroadcastRow>(q, text, params, NUMBERS);
  const count = async (text: string, params: unknown[]) => (await one<{ n: number }>(q, text, params))!.n;
  return {
    async insert(row) {
      await run(
        q,
        `INSERT INTO broadcasts (id, app_id, template_slug, attributes, content_state, storage_policy, state, environment, channel_id, channel_state,
           topic, last_timestamp, started_at) VALUES ($1, $2, $3, $4, $5, $6, 'Active', $7, $8, $9, $10, $11, $12)`,
        [row.id, row.appId, row.templateSlug, row.attributes, row.contentState, row.storagePolicy, row.environment, row.channelId, row.channelState, row.topic, row.lastTimestamp, row.startedAt],
      );
    },
    find: async (appId, id) => (await rows(`SELECT ${COLUMNS} FROM broadcasts WHERE app_id = $1 AND id = $2`, [appId, id]))[0],
    byId: async (id) => (await rows(`SELECT ${COLUMNS} FROM broadcasts WHERE id = $1`, [id]))[0],
    list: async (appId, state, limit, offset) => ({
      rows: await rows(`SELECT ${COLUMNS} FROM broadcasts WHERE app_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY started_at DESC, id DESC LIMIT $3 OFFSET $4`, [
        appId,
        state ?? null,
        limit,
        offset,
      ]),
      total: await count(`SELECT count(*)::int AS n FROM broadcasts WHERE app_id = $1 AND ($2::text IS NULL OR state = $2)`, [appId, state ?? null]),
    }),
    channelCount: (appId, environment) =>
      count(`SELECT count(*)::int AS n FROM broadcasts WHERE app_id = $1 AND environment = $2 AND channel_state IN ('creating', 'open')`, [appId, environment]),
    knownChannels: async (appId, environment) =>
      new Set(
        (await all<{ channelId: string }>(q, `SELECT channel_id AS "channelId" FROM broadcasts WHERE app_id = $1 AND environment = $2 AND channel_id IS NOT NULL`, [appId, environment])).map(
          (r) => r.channelId,
        ),
      ),
    activeCount: (appId) => count(`SELECT count(*)::int AS n FROM broadcasts WHERE app_id = $1 AND state = 'Active'`, [appId]),
    async appsWithActive() {
      const apps = new Map<string, { appId: string; plan: string; ids: string[] }>();
      for (const r of await all<{ appId: string; plan: string; id: string }>(
        q,
        `SELECT b.app_id AS "appId", a.plan, b.id FROM broadcasts b JOIN apps a ON a.id = b.app_id WHERE b.state = 'Active' ORDER BY b.app_id, b.started_at`,
      )) {
        const app = apps.get(r.appId) ?? { appId: r.appId, plan: r.plan, ids: [] };
        apps.set(r.appId, app).get(r.appId)!.ids.push(r.id);
      }
      return [...apps.values()];
    },
    async recordEvent(id, contentState, lastTimestamp) {
      await run(q, 'UPDATE broadcasts SET content_state = $2, last_timestamp = $3 WHERE id = $1', [id, contentState, lastTimestamp]);
    },
    end: async (id, reason, endedAt) => (await run(q, `UPDATE broadcasts SET state = 'Ended', end_reason = $2, ended_at = $3 WHERE id = $1 AND state = 'Active'`, [id, reason, endedAt])) > 0,
    async setChannel(id, state, channelId, reason) {
      await run(q, 'UPDATE broadcasts SET channel_state = $2, channel_id = coalesce($3, channel_id), channel_reason = $4 WHERE id = $1', [id, state, channelId, reason]);
    },
    async setHeld(id, reason) {
      await run(q, 'UPDATE broadcasts SET held_reason = $2 WHERE id = $1', [id, reason]);
    },
    async countUpdateSent(id) {
      await run(q, 'UPDATE broadcasts SET updates_sent = updates_sent + 1 WHERE id = $1', [id]);
    },
    async addSubscribers(id, n) {
      await run(q, 'UPDATE broadcasts SET subscribers_started = subscribers_started + $2 WHERE id = $1', [id, n]);
    },
    runningMs: async (appId, from, to) =>
      (await one<{ ms: number | null }>(
        q,
        `SELECT sum(LEAST(coalesce(ended_at, $3::bigint), $3::bigint) - GREATEST(started_at, $2::bigint)) AS ms FROM broadcasts
          WHERE app_id = $1 AND started_at < $3 AND (ended_at IS NULL OR ended_at > $2)`,
        [appId, from, to],
        ['ms'],
      ))?.ms ?? 0,
    async queue(op, now) {
      await run(
        q,
        `INSERT INTO broadcast_ops (broadcast_id, app_id, kind, content, status, next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, 'pending', $5, $6, $6)`,
        [op.broadcastId, op.appId, op.kind, op.content, op.dueAt, now],
      );
    },
    supersedeUpdates: (broadcastId, now) =>
      run(
        q,
        `UPDATE broadcast_ops SET status = 'superseded', reason = 'superseded by a newer event', updated_at = $2
          WHERE broadcast_id = $1 AND status = 'pending' AND kind = 'update' AND NOT apns_done AND NOT fcm_done AND attempts = 0`,
        [broadcastId, now],
      ),
    // A claim under this instance's lease (several instances on one database): a step claimed by
    // another live instance is skipped, and so is every later step of its broadcast (steps go in
    // order). This instance takes its own claims again: its worker never runs two rounds at once,
    // so a claim of its own still pending is one a failed round left.
    due: (now, limit) =>
      all<BroadcastOp>(
        q,
        `WITH claimed AS (
           UPDATE broadcast_ops SET claimed_by = $3
            WHERE id IN (
              SELECT id FROM broadcast_ops o WHERE status = 'pending' AND next_attempt_at <= $1
                 AND id = (SELECT min(id) FROM broadcast_ops WHERE broadcast_id = o.broadcast_id AND status = 'pending')
                 AND (claimed_by = $3 OR ${orphaned('claimed_by')})
               ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
            RETURNING ${OP_COLUMNS})
         SELECT * FROM claimed ORDER BY "nextAttemptAt", id`,
        [now, limit, owner],
        OP_NUMBERS,
      ),
    async saveOp(op, now) {
      await run(
        q,
        'UPDATE broadcast_ops SET status = $2, apns_done = $3, fcm_done = $4, attempts = $5, next_attempt_at = $6, reason = $7, updated_at = $8, claimed_by = NULL WHERE id = $1',
        [op.id, op.status, op.apnsDone, op.fcmDone, op.attempts, op.nextAttemptAt, op.reason, now],
      );
    },
    async failPending(broadcastId, reason, now) {
      await run(q, `UPDATE broadcast_ops SET status = 'failed', reason = $2, updated_at = $3 WHERE broadcast_id = $1 AND status = 'pending' AND kind <> 'delete_channel'`, [
        broadcastId,
        reason,
        now,
      ]);
    },
    ops: (broadcastId) => all<BroadcastOp>(q, `SELECT ${OP_COLUMNS} FROM broadcast_ops WHERE broadcast_id = $1 ORDER BY id`, [broadcastId], OP_NUMBERS),
    prune: async (opsBefore, endedBefore) => ({
      broadcastSteps: await run(q, `DELETE FROM broadcast_ops WHERE status IN ('done', 'failed', 'superseded') AND updated_at < $1`, [opsBefore]),
      broadcasts: await run(q, `DELETE FROM broadcasts WHERE state = 'Ended' AND ended_at < $1 AND channel_state IN ('deleted', 'failed')`, [endedBefore]),
    }),
  };
}
