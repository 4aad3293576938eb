import type { Db } from '../database';
import { promised } from '../promised';
import type {
  BroadcastEnvironment,
  BroadcastOp,
  BroadcastRow,
  BroadcastsRepository,
  ChannelState,
  NewBroadcast,
  OpKind,
} from '../../../modules/broadcasts/broadcasts.repository';

const COLUMNS = `id, app_id AS appId, template_slug AS templateSlug, attributes, content_state AS contentState, storage_policy AS storagePolicy,
  state, environment, channel_id AS channelId, channel_state AS channelState, channel_reason AS channelReason, topic,
  last_timestamp AS lastTimestamp, updates_sent AS updatesSent, subscribers_started AS subscribersStarted, held_reason AS heldReason,
  end_reason AS endReason, started_at AS startedAt, ended_at AS endedAt`;
const OP_COLUMNS = `id, broadcast_id AS broadcastId, app_id AS appId, kind, content, status, apns_done AS apnsDone, fcm_done AS fcmDone,
  attempts, next_attempt_at AS nextAttemptAt, reason`;

const opOf = (row: BroadcastOp): BroadcastOp => ({ ...row, apnsDone: Boolean(row.apnsDone), fcmDone: Boolean(row.fcmDone) });

/** The statements on `broadcasts` and their outbox `broadcast_ops`. */
function broadcastsStatements(db: Db) {
  const client = db.$client;
  const insert = client.query(
    `INSERT INTO broadcasts (id, app_id, template_slug, attributes, content_state, storage_policy, state, environment, channel_id, channel_state,
       topic, last_timestamp, started_at) VALUES (?, ?, ?, ?, ?, ?, 'Active', ?, ?, ?, ?, ?, ?)`,
  );
  const find = client.query<BroadcastRow, [string, string]>(`SELECT ${COLUMNS} FROM broadcasts WHERE app_id = ? AND id = ?`);
  const byId = client.query<BroadcastRow, [string]>(`SELECT ${COLUMNS} FROM broadcasts WHERE id = ?`);
  const page = client.query<BroadcastRow, [string, string | null, number, number]>(
    `SELECT ${COLUMNS} FROM broadcasts WHERE app_id = ?1 AND (?2 IS NULL OR state = ?2) ORDER BY started_at DESC, id DESC LIMIT ?3 OFFSET ?4`,
  );
  const count = client.query<{ n: number }, [string, string | null]>(`SELECT count(*) AS n FROM broadcasts WHERE app_id = ?1 AND (?2 IS NULL OR state = ?2)`);
  const channels = client.query<{ n: number }, [string, string]>(
    `SELECT count(*) AS n FROM broadcasts WHERE app_id = ? AND environment = ? AND channel_state IN ('creating', 'open')`,
  );
  const known = client.query<{ channelId: string }, [string, string]>(
    `SELECT channel_id AS channelId FROM broadcasts WHERE app_id = ? AND environment = ? AND channel_id IS NOT NULL`,
  );
  const running = client.query<{ appId: string; plan: string; id: string }, []>(
    `SELECT b.app_id AS appId, a.plan, b.id FROM broadcasts b JOIN apps a ON a.id = b.app_id WHERE b.state = 'Active' ORDER BY b.app_id, b.started_at`,
  );
  const active = client.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM broadcasts WHERE app_id = ? AND state = 'Active'`);
  const recordEvent = client.query(`UPDATE broadcasts SET content_state = ?2, last_timestamp = ?3 WHERE id = ?1`);
  const end = client.query(`UPDATE broadcasts SET state = 'Ended', end_reason = ?2, ended_at = ?3 WHERE id = ?1 AND state = 'Active'`);
  const setChannel = client.query(`UPDATE broadcasts SET channel_state = ?2, channel_id = coalesce(?3, channel_id), channel_reason = ?4 WHERE id = ?1`);
  const setHeld = client.query(`UPDATE broadcasts SET held_reason = ?2 WHERE id = ?1`);
  const counted = client.query(`UPDATE broadcasts SET updates_sent = updates_sent + 1 WHERE id = ?`);
  const subscribers = client.query(`UPDATE broadcasts SET subscribers_started = subscribers_started + ?2 WHERE id = ?1`);
  const usage = client.query<{ ms: number | null }, [string, number, number]>(
    `SELECT sum(min(coalesce(ended_at, ?3), ?3) - max(started_at, ?2)) AS ms FROM broadcasts
      WHERE app_id = ?1 AND started_at < ?3 AND (ended_at IS NULL OR ended_at > ?2)`,
  );

  const insertOp = client.query(
    `INSERT INTO broadcast_ops (broadcast_id, app_id, kind, content, status, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
  );
  const supersede = client.query(
    `UPDATE broadcast_ops SET status = 'superseded', reason = 'superseded by a newer event', updated_at = ?2
      WHERE broadcast_id = ?1 AND status = 'pending' AND kind = 'update' AND apns_done = 0 AND fcm_done = 0 AND attempts = 0`,
  );
  // The first unfinished step of each broadcast, when it is due: steps of one broadcast go in order.
  const due = client.query<BroadcastOp, [number, number]>(
    `SELECT ${OP_COLUMNS} FROM broadcast_ops o WHERE status = 'pending' AND next_attempt_at <= ?1
       AND id = (SELECT min(id) FROM broadcast_ops WHERE broadcast_id = o.broadcast_id AND status = 'pending')
     ORDER BY next_attempt_at, id LIMIT ?2`,
  );
  const saveOp = client.query(
    `UPDATE broadcast_ops SET status = ?2, apns_done = ?3, fcm_done = ?4, attempts = ?5, next_attempt_at = ?6, reason = ?7, updated_at = ?8 WHERE id = ?1`,
  );
  const failPending = client.query(
    `UPDATE broadcast_ops SET status = 'failed', reason = ?2, updated_at = ?3 WHERE broadcast_id = ?1 AND status = 'pending' AND kind <> 'delete_channel'`,
  );
  const pruneOps = client.query(`DELETE FROM broadcast_ops WHERE status IN ('done', 'failed', 'superseded') AND updated_at < ?`);
  // A broadcast whose channel still exists at Apple stays: its deletion is still to come.
  const pruneEnded = client.query(`DELETE FROM broadcasts WHERE state = 'Ended' AND ended_at < ? AND channel_state IN ('deleted', 'failed')`);
  const opsOf = client.query<BroadcastOp, [string]>(`SELECT ${OP_COLUMNS} FROM broadcast_ops WHERE broadcast_id = ? ORDER BY id`);

  return {
    insert(row: NewBroadcast): void {
      insert.run(row.id, row.appId, row.templateSlug, row.attributes, row.contentState, row.storagePolicy, row.environment, row.channelId, row.channelState, row.topic, row.lastTimestamp, row.startedAt);
    },
    find: (appId: string, id: string): BroadcastRow | undefined => find.get(appId, id) ?? undefined,
    byId: (id: string): BroadcastRow | undefined => byId.get(id) ?? undefined,
    /** A page of the app's broadcasts, newest first, and how many match. */
    list(appId: string, state: 'Active' | 'Ended' | undefined, limit: number, offset: number): { rows: BroadcastRow[]; total: number } {
      return { rows: page.all(appId, state ?? null, limit, offset), total: count.get(appId, state ?? null)!.n };
    },
    /** Channels the app holds (or is making) at Apple in this environment, as Islet knows them. */
    channelCount: (appId: string, environment: BroadcastEnvironment): number => channels.get(appId, environment)!.n,
    /** Every channel id Islet ever had for the app in this environment (orphans are the others). */
    knownChannels: (appId: string, environment: BroadcastEnvironment): Set<string> => new Set(known.all(appId, environment).map((r) => r.channelId)),
    activeCount: (appId: string): number => active.get(appId)!.n,
    appsWithActive(): { appId: string; plan: string; ids: string[] }[] {
      const apps = new Map<string, { appId: string; plan: string; ids: string[] }>();
      for (const r of running.all()) {
        const app = apps.get(r.appId) ?? { appId: r.appId, plan: r.plan, ids: [] };
        apps.set(r.appId, app).get(r.appId)!.ids.push(r.id);
      }
      return [...apps.values()];
    },
    recordEvent(id: string, contentState: string, lastTimestamp: number): void {
      recordEvent.run(id, contentState, lastTimestamp);
    },
    /** Ends an Active broadcast; false when it was not Active. */
    end: (id: string, reason: string, endedAt: number): boolean => end.run(id, reason, endedAt).changes > 0,
    setChannel(id: string, state: ChannelState, channelId: string | null, reason: string | null): void {
      setChannel.run(id, state, channelId, reason);
    },
    setHeld(id: string, reason: string | null): void {
      setHeld.run(id, reason);
    },
    countUpdateSent(id: string): void {
      counted.run(id);
    },
    addSubscribers(id: string, n: number): void {
      subscribers.run(id, n);
    },
    /** Milliseconds the app's broadcasts ran inside [from, to). */
    runningMs: (appId: string, from: number, to: number): number => usage.get(appId, from, to)!.ms ?? 0,

    queue(op: { broadcastId: string; appId: string; kind: OpKind; content: string | null; dueAt: number }, now: number): void {
      insertOp.run(op.broadcastId, op.appId, op.kind, op.content, op.dueAt, now, now);
    },
    /** Latest wins: the broadcast's updates not attempted yet are superseded; returns how many. */
    supersedeUpdates: (broadcastId: string, now: number): number => supersede.run(broadcastId, now).changes,
    due: (now: number, limit: number): BroadcastOp[] => due.all(now, limit).map(opOf),
    saveOp(op: BroadcastOp, now: number): void {
      saveOp.run(op.id, op.status, op.apnsDone ? 1 : 0, op.fcmDone ? 1 : 0, op.attempts, op.nextAttemptAt, op.reason, now);
    },
    /** The broadcast is over: its steps still pending fail with `reason` (the channel's deletion still runs). */
    failPending(broadcastId: string, reason: string, now: number): void {
      failPending.run(broadcastId, reason, now);
    },
    ops: (broadcastId: string): BroadcastOp[] => opsOf.all(broadcastId).map(opOf),
    prune: (opsBefore: number, endedBefore: number): { broadcastSteps: number; broadcasts: number } => ({
      broadcastSteps: pruneOps.run(opsBefore).changes,
      broadcasts: pruneEnded.run(endedBefore).changes,
    }),
  };
}

/** The repository over broadcastsStatements: every method returns a Promise. */
export const broadcastsRepository = (db: Db): BroadcastsRepository => promised(broadcastsStatements(db));
