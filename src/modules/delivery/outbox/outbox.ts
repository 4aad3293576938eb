import type { Store, Tx } from '../../../db/store';
import type { WakeUps } from '../../../coordination/coordination';
import { messageKind, type MessageContent } from '../message-content';
import { deliveryFailed } from '../../webhooks/delivery-events';

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

/**
 * Writes a message and one delivery per target, in the caller's transaction `tx`, together with
 * whatever the message is about, so that nothing accepted can be lost between the answer and the
 * delivery. `store` is whose worker is woken. Returns the number of deliveries written.
 * @example await ctx.db.write((tx) => enqueue(ctx.db, tx, { appId, content, targets, now }))
 */
export async function enqueue(
  store: Store,
  tx: Tx,
  input: { appId: string; content: MessageContent; targets: Iterable<DeliveryTarget>; now: number; activityId?: string },
): Promise<{ messageId: number; deliveries: number }> {
  const activityId = input.content.type === 'live_activity' ? input.content.activityId : (input.activityId ?? null);
  const kind = messageKind(input.content);
  const messageId = await tx.outbox.insertMessage(input.appId, kind, activityId, JSON.stringify(input.content), input.content.templateSlug, input.now);
  let targets = input.targets;
  if (input.content.type === 'live_activity' && input.content.event !== 'start') {
    // One end user's devices: read twice (superseding, then queueing), so held as a list.
    const devices = [...targets];
    await supersede(store, tx, activityId!, devices, input.now);
    targets = devices;
  }
  let failed = 0;
  const rows = function* () {
    for (const t of targets) {
      if (t.status === 'failed') failed++;
      // Held at queueing means waiting for the activity's own token (see DeliveryTarget.status).
      yield { deviceId: t.deviceId, tokenId: t.tokenId ?? null, status: t.status ?? 'pending', holdKind: t.status === 'held' ? ('token' as const) : null, reason: t.reason ?? null };
    }
  };
  const deliveries = await tx.outbox.insertDeliveries({ appId: input.appId, id: messageId, activityId }, rows(), input.now);
  if (failed > 0) await failedAtEnqueue(store, tx, input.appId, messageId, kind, failed, input.now);
  notifyQueued(store);
  return { messageId, deliveries };
}

/**
 * Deliveries that could not be sent at all (an iPhone without a push-to-start token at a start):
 * told like the worker's failures, the delivery.failed webhook in the same transaction and
 * islet_deliveries_total (provider none: decided without sending).
 */
async function failedAtEnqueue(store: Store, tx: Tx, appId: string, messageId: number, kind: DeliveryKind, count: number, now: number): Promise<void> {
  const rows = await tx.outbox.failedOf(messageId);
  await tx.webhookEvents.emitAll(rows.map((r) => deliveryFailed({ ...r, attempts: 0 })), now);
  notifySettled(store, { appId, provider: 'none', kind, outcome: 'failed', count });
}

/**
 * Latest wins: an update or end queued for an activity supersedes the updates to the same devices
 * that have not gone yet (pending, or held for a token or a channel), so after an outage each
 * phone gets the latest state, not the history. Starts and ends are never superseded.
 */
async function supersede(store: Store, tx: Tx, activityId: string, targets: DeliveryTarget[], now: number): Promise<void> {
  const superseded = await tx.outbox.supersedeUpdates(activityId, targets.map((t) => t.deviceId), now);
  for (const r of superseded) notifySettled(store, { appId: r.appId, provider: r.provider ?? 'none', kind: 'la_update', outcome: 'superseded', count: 1 });
}

/**
 * Makes the deliveries held for an iOS activity instance due now, at the update token that device
 * just reported (in `tx`). Deliveries parked on a paused channel stay parked.
 */
export async function releaseHeld(store: Store, tx: Tx, target: { activityId: string; deviceId: string; tokenId: number }, now: number): Promise<number> {
  const released = await tx.outbox.releaseHeld(target, now);
  if (released > 0) notifyQueued(store);
  return released;
}

const wakeUpsOf = new WeakMap<Store, WakeUps>();

/**
 * The wake-ups that queueing on this store notifies (bootstrap binds its context's): `enqueue`
 * and `releaseHeld` hold only the store, not the context.
 */
export function bindWakeUps(db: Store, wakeUps: WakeUps): void {
  wakeUpsOf.set(db, wakeUps);
}

/**
 * Tells the delivery worker (it claims at once instead of at its next poll) and the console that
 * deliveries were queued or released. Called inside the caller's transaction; the wake-up goes once
 * it commits.
 */
export function notifyQueued(db: Store): void {
  const wakeUps = wakeUpsOf.get(db);
  if (!wakeUps) return;
  const notify = () => {
    wakeUps.notify('deliveries-queued');
    wakeUps.notify('deliveries-changed');
  };
  db.afterCommit(notify);
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

const settledListeners = new WeakMap<Store, Set<(settled: SettledAtEnqueue) => void>>();

/**
 * Calls `listener` for deliveries queueing settled on this database (the metrics of the context
 * count them, as the worker counts its outcomes). Runs inside the caller's transaction: a request
 * whose transaction then rolls back (a failing disk) is counted all the same.
 * Returns the function that removes the listener.
 */
export function onSettledAtEnqueue(db: Store, listener: (settled: SettledAtEnqueue) => void): () => void {
  const set = settledListeners.get(db) ?? new Set();
  settledListeners.set(db, set.add(listener));
  return () => void set.delete(listener);
}

function notifySettled(db: Store, settled: SettledAtEnqueue): void {
  settledListeners.get(db)?.forEach((listener) => listener(settled));
}
