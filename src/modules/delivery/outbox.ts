import type { Db } from '../../db/sqlite/database';
import { deliveryOutcomes } from '../webhooks/webhooks.causes';
import { WAITING_FOR_TOKEN } from './delivery.routing';
import { messageKind, type MessageContent } from './message-content';

/** One device a message goes to, and whether its delivery may go now or must wait. */
export interface DeliveryTarget {
  deviceId: string;
  /** The ledger token to send to; absent while unknown (an iOS update held for its activity token). */
  tokenId?: number;
  /**
   * pending: send as soon as a worker is free. held: wait for the iOS activity's own push token
   * (released by `releaseHeld`). failed: cannot be sent at all (the reason says why), recorded so
   * the console shows it.
   */
  status?: 'pending' | 'held' | 'failed';
  reason?: string;
}

/** Rows per INSERT of a large fan-out: 100,000 deliveries are written in about half the time one row a statement takes. */
const INSERT_BATCH = 100;
const insertSql = (rows: number) =>
  `INSERT INTO deliveries (app_id, message_id, device_id, activity_id, token_id, status, attempts, next_attempt_at, reason, created_at, updated_at)
   VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)').join(', ')}`;
const INSERT_ONE = insertSql(1);
const INSERT_MANY = insertSql(INSERT_BATCH);

/**
 * Writes a message and one delivery per target. Must run inside the caller's transaction, together
 * with whatever the message is about, so that nothing accepted can be lost between the answer and
 * the delivery. Returns the number of deliveries written.
 * @example db.transaction(() => enqueue(db, { appId, content, targets, now }))
 */
export function enqueue(
  db: Db,
  input: { appId: string; content: MessageContent; targets: Iterable<DeliveryTarget>; now: number; activityId?: string },
): { messageId: number; deliveries: number } {
  const client = db.$client;
  const activityId = input.content.type === 'live_activity' ? input.content.activityId : (input.activityId ?? null);
  const message = client
    .query<{ id: number }, [string, string, string | null, string, string, number]>(
      'INSERT INTO messages (app_id, kind, activity_id, content, template_slug, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    )
    .get(input.appId, messageKind(input.content), activityId, JSON.stringify(input.content), input.content.templateSlug, input.now)!;
  let targets = input.targets;
  if (input.content.type === 'live_activity' && input.content.event !== 'start') {
    // One end user's devices: read twice (superseding, then queueing), so held as a list.
    const devices = [...targets];
    supersede(db, activityId!, devices, input.now);
    targets = devices;
  }
  const row = (t: DeliveryTarget) => [input.appId, message.id, t.deviceId, activityId, t.tokenId ?? null, t.status ?? 'pending', input.now, t.reason ?? null, input.now, input.now];
  // Targets may be streamed from a query (a large send): written as they come, INSERT_BATCH at a time.
  let batch: DeliveryTarget[] = [];
  let written = 0;
  let failed = 0;
  for (const target of targets) {
    if (target.status === 'failed') failed++;
    if (batch.push(target) < INSERT_BATCH) continue;
    client.query<never, (string | number | null)[]>(INSERT_MANY).run(...batch.flatMap(row));
    written += batch.length;
    batch = [];
  }
  const single = client.query<never, (string | number | null)[]>(INSERT_ONE);
  for (const target of batch) single.run(...row(target));
  if (failed > 0) failedAtEnqueue(db, input.appId, message.id, messageKind(input.content), failed, input.now);
  notifyQueued(db);
  return { messageId: message.id, deliveries: written + batch.length };
}

/**
 * Deliveries that could not be sent at all (an iPhone without a push-to-start token at a start):
 * told like the worker's failures, the delivery.failed webhook in the same transaction and
 * islet_deliveries_total (provider none: decided without sending).
 */
function failedAtEnqueue(db: Db, appId: string, messageId: number, kind: DeliveryKind, count: number, now: number): void {
  const rows = db.$client
    .query<{ id: number; reason: string | null }, [number]>(`SELECT id, reason FROM deliveries WHERE message_id = ? AND status = 'failed'`)
    .all(messageId);
  deliveryOutcomes(db, rows.map((r) => ({ ...r, status: 'failed', attempts: 0 })), [], now);
  notifySettled(db, { appId, provider: 'none', kind, outcome: 'failed', count });
}

/**
 * Latest wins: an update or end queued for an activity supersedes the updates to the same devices
 * that have not gone yet (pending, or held for a token or a channel), so after an outage each
 * phone gets the latest state, not the history. Starts and ends are never superseded.
 */
function supersede(db: Db, activityId: string, targets: DeliveryTarget[], now: number): void {
  const devices = JSON.stringify(targets.map((t) => t.deviceId));
  // The ids come from one lookup per status, so each walks its own small partial index; one
  // statement rather than one per status: each costs more to run than its (mostly empty) lookup.
  const superseded = db.$client
    .query<{ appId: string; provider: string | null }, [number, string, string]>(
      `UPDATE deliveries SET status = 'superseded', reason = 'superseded by a newer event', updated_at = ?1
        WHERE id IN (SELECT id FROM deliveries WHERE activity_id = ?2 AND status = 'pending'
                     UNION ALL SELECT id FROM deliveries WHERE activity_id = ?2 AND status = 'held')
          AND device_id IN (SELECT value FROM json_each(?3))
          AND (SELECT kind FROM messages WHERE id = deliveries.message_id) = 'la_update'
        RETURNING app_id AS appId, provider`,
    )
    .all(now, activityId, devices);
  for (const r of superseded) notifySettled(db, { appId: r.appId, provider: r.provider ?? 'none', kind: 'la_update', outcome: 'superseded', count: 1 });
}

/**
 * Makes the deliveries held for an iOS activity instance due now, at the update token that device
 * just reported. Deliveries parked on a paused channel stay parked.
 */
export function releaseHeld(db: Db, target: { activityId: string; deviceId: string; tokenId: number }, now: number): number {
  const released = db.$client
    .query(
      `UPDATE deliveries SET status = 'pending', token_id = ?1, reason = NULL, next_attempt_at = ?2, updated_at = ?2
        WHERE activity_id = ?3 AND device_id = ?4 AND status = 'held' AND (reason IS NULL OR reason = ?5)`,
    )
    .run(target.tokenId, now, target.activityId, target.deviceId, WAITING_FOR_TOKEN).changes;
  if (released > 0) notifyQueued(db);
  return released;
}

const listeners = new WeakMap<Db, Set<() => void>>();

/**
 * Calls `listener` whenever deliveries are queued or released on this database, so the delivery
 * worker starts at once instead of at its next poll. Listeners run synchronously inside the
 * caller's transaction and must only schedule work (the worker's wake-up resumes after it).
 * Returns the function that removes the listener.
 */
export function onQueued(db: Db, listener: () => void): () => void {
  const set = listeners.get(db) ?? new Set();
  listeners.set(db, set.add(listener));
  return () => void set.delete(listener);
}

/** Tells the worker (and the console) that deliveries were made due by a statement outside this file. */
export function notifyQueued(db: Db): void {
  listeners.get(db)?.forEach((listener) => listener());
  notifyChanged(db);
}

type DeliveryKind = ReturnType<typeof messageKind>;

/** Deliveries that queueing settled without the worker (failed at once, or superseded), counted for islet_deliveries_total. */
export interface SettledAtEnqueue {
  appId: string;
  provider: string;
  kind: DeliveryKind;
  outcome: 'failed' | 'superseded';
  count: number;
}

const settledListeners = new WeakMap<Db, Set<(settled: SettledAtEnqueue) => void>>();

/**
 * Calls `listener` for deliveries queueing settled on this database (the metrics of the context
 * count them, as the worker counts its outcomes). Runs inside the caller's transaction: a request
 * whose transaction then rolls back (a failing disk) is counted all the same.
 * Returns the function that removes the listener.
 */
export function onSettledAtEnqueue(db: Db, listener: (settled: SettledAtEnqueue) => void): () => void {
  const set = settledListeners.get(db) ?? new Set();
  settledListeners.set(db, set.add(listener));
  return () => void set.delete(listener);
}

function notifySettled(db: Db, settled: SettledAtEnqueue): void {
  settledListeners.get(db)?.forEach((listener) => listener(settled));
}

const changeListeners = new WeakMap<Db, Set<() => void>>();

/**
 * Calls `listener` whenever deliveries of this database were queued, released or answered (the
 * worker calls `notifyChanged` after writing a batch of outcomes): the console's live pages follow
 * it. Listeners only schedule work. Returns the function that removes the listener.
 */
export function onDeliveriesChanged(db: Db, listener: () => void): () => void {
  const set = changeListeners.get(db) ?? new Set();
  changeListeners.set(db, set.add(listener));
  return () => void set.delete(listener);
}

export function notifyChanged(db: Db): void {
  changeListeners.get(db)?.forEach((listener) => listener());
}
