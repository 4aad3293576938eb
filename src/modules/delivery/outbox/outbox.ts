import type { Store, Tx } from '../../../db/store';
import type { WakeUps } from '../../../coordination/coordination';
import { messageKind, type MessageContent } from '../message-content';
import { deliveryFailed } from '../../webhooks/delivery-events';
import { webhookEventsRepository } from '../../webhooks/webhook-events.repository';
import { outboxRepository } from './outbox.repository';
import type { RenderedPayloads } from '../payloads';
import type { NewDelivery, Superseded } from './outbox.types';
import type { HoldKind } from '../holds/hold-kind';

/** One device a message goes to, and whether its delivery may go now or must wait. */
export interface DeliveryTarget {
  deviceId: string;
  /** The ledger token to send to; absent while unknown (an iOS update held for its activity token). */
  tokenId?: number;
  /**
   * pending: send as soon as a worker is free. held: wait for the iOS activity's own push token
   * (released by `releaseHeld`), or for what `holdKind` names. failed: cannot be sent at all (the
   * reason says why), recorded so the console shows it. dropped: not to be sent (a frequency cap).
   */
  status?: 'pending' | 'held' | 'failed' | 'dropped';
  reason?: string;
  /** What a held delivery waits for; absent: its activity's token. */
  holdKind?: HoldKind;
  /** pending: not before this time, ms (a paced push-to-start); held for quiet hours: when it is released; absent: now. */
  dueAt?: number;
}

/**
 * The outbox of deliveries: queueing writes a message and its deliveries in the caller's
 * transaction, and, once it commits, wakes the delivery workers (here and, through the
 * coordination's wake-ups, on other instances) and the console. Built once with the context
 * (bootstrap): `store` is the database whose units of work the wake-ups wait for.
 * @example await ctx.db.write((tx) => ctx.outbox.enqueue(tx, { appId, content, targets, now }))
 */
export class Outbox {
  private readonly settledListeners = new Set<(settled: SettledAtEnqueue) => void>();
  private readonly queuedListeners = new Set<(queued: { appId: string; content: MessageContent; count: number }) => void>();

  constructor(
    private readonly store: Store,
    private readonly wakeUps: WakeUps,
  ) {}

  /**
   * Writes a message and one delivery per target, in the caller's transaction `tx`, together with
   * whatever the message is about, so that nothing accepted can be lost between the answer and the
   * delivery. Returns the message's id and the number of deliveries written.
   */
  async enqueue(
    tx: Tx,
    input: { appId: string; content: MessageContent; targets: Iterable<DeliveryTarget>; now: number; activityId?: string; rendered?: RenderedPayloads },
  ): Promise<{ messageId: number; deliveries: number }> {
    const activityId = input.content.type === 'live_activity' ? input.content.activityId : (input.activityId ?? null);
    const kind = messageKind(input.content);
    const content = JSON.stringify(input.content);
    let failed = 0;
    let dropped = 0;
    const rows = () => deliveryRows(input.targets, () => failed++, () => dropped++);
    let messageId: number;
    let deliveries: number;
    if (input.content.type === 'live_activity' && input.content.event !== 'start') {
      // Latest wins: an update or end supersedes the updates to the same devices that have not gone
      // yet (pending, or held for a token or a channel), so after an outage each phone gets the
      // latest state, not the history. Starts and ends are never superseded. One end user's devices.
      const list = [...rows()];
      const queued = await outboxRepository(tx).queueFollowUp(
        { appId: input.appId, kind, activityId: activityId!, content, templateSlug: input.content.templateSlug, sentBody: input.rendered?.apnsBody ?? null },
        list,
        input.now,
      );
      for (const r of queued.superseded) this.settled({ appId: r.appId, provider: r.provider ?? 'none', kind: 'la_update', outcome: 'superseded', count: 1 });
      messageId = queued.messageId;
      deliveries = list.length;
    } else {
      messageId = await outboxRepository(tx).insertMessage(input.appId, kind, activityId, content, 'templateSlug' in input.content ? input.content.templateSlug : null, input.now);
      deliveries = await outboxRepository(tx).insertDeliveries({ appId: input.appId, id: messageId, activityId }, rows(), input.now);
    }
    if (failed > 0) await this.failedAtEnqueue(tx, input.appId, messageId, kind, failed, input.now);
    if (dropped > 0) this.settled({ appId: input.appId, provider: 'none', kind, outcome: 'dropped', count: dropped });
    this.queued(input.appId, input.content, deliveries - failed - dropped);
    this.notifyQueued();
    return { messageId, deliveries };
  }

  /**
   * Writes several messages of one app, each with its deliveries, in the caller's transaction `tx`:
   * as `enqueue` for each, in a few statements however many there are (a start to 10,000 end
   * users). Not for an update or end, which supersede (`enqueue`). Returns the messages' ids in order.
   */
  async enqueueEach(tx: Tx, input: { appId: string; now: number; messages: readonly { content: MessageContent; targets: Iterable<DeliveryTarget>; sentBody?: string | null }[] }): Promise<number[]> {
    const failed: number[] = [];
    const list = input.messages.map(({ content, targets, sentBody = null }, i) => {
      if (content.type === 'live_activity' && content.event !== 'start') throw new Error('enqueueEach: an update or end supersedes, queue it with enqueue');
      failed[i] = 0;
      const deliveries = [...deliveryRows(targets, () => failed[i]!++)];
      const templateSlug = 'templateSlug' in content ? content.templateSlug : null;
      return { kind: messageKind(content), activityId: content.type === 'live_activity' ? content.activityId : null, content: JSON.stringify(content), templateSlug, sentBody, deliveries };
    });
    const ids = await outboxRepository(tx).insertMessagesWithDeliveries(input.appId, list, input.now);
    for (const [i, count] of failed.entries()) if (count > 0) await this.failedAtEnqueue(tx, input.appId, ids[i]!, list[i]!.kind, count, input.now);
    for (const [i, { content }] of input.messages.entries()) this.queued(input.appId, content, list[i]!.deliveries.length - failed[i]!);
    this.notifyQueued();
    return ids;
  }

  /**
   * Writes more deliveries of a message `enqueue` wrote in the same transaction `tx`: a fan-out
   * that writes several messages at once (a localized send), or in chunks (one with quiet hours or
   * a frequency cap), adds to each in batches. Returns the number of deliveries written. No wake-up
   * of its own: `enqueue`'s goes at the commit.
   */
  async append(tx: Tx, input: { appId: string; messageId: number; targets: Iterable<DeliveryTarget & { tokenId: number }>; now: number }): Promise<number> {
    let dropped = 0;
    const rows = deliveryRows(input.targets, () => {}, () => dropped++);
    const written = await outboxRepository(tx).insertDeliveries({ appId: input.appId, id: input.messageId, activityId: null }, rows, input.now);
    if (dropped > 0) this.settled({ appId: input.appId, provider: 'none', kind: 'notification', outcome: 'dropped', count: dropped });
    return written;
  }

  /**
   * Makes the deliveries held for an iOS activity instance due now, at the update token that device
   * just reported (in `tx`). Deliveries parked on a paused channel stay parked.
   */
  async releaseHeld(tx: Tx, target: { activityId: string; deviceId: string; tokenId: number }, now: number): Promise<number> {
    const released = await outboxRepository(tx).releaseHeld(target, now);
    if (released > 0) this.notifyQueued();
    return released;
  }

  /**
   * Tells what a Live Activity update queued in a statement of its own, outside a unit of work
   * (live-activities/optimistic-update.ts on PostgreSQL), as `enqueue` tells its own: the
   * superseded deliveries and the pushes queued (one message per priority group) to the metrics,
   * and the wake-ups, at once (it is committed).
   */
  queuedFollowUp(appId: string, messages: readonly { content: MessageContent; count: number }[], superseded: readonly Superseded[]): void {
    for (const r of superseded) this.settled({ appId: r.appId, provider: r.provider ?? 'none', kind: 'la_update', outcome: 'superseded', count: 1 });
    for (const m of messages) this.queued(appId, m.content, m.count);
    this.notifyQueued();
  }

  /**
   * Tells the delivery worker (it claims at once instead of at its next poll) and the console that
   * deliveries were queued or released. Called inside the caller's transaction; the wake-up goes once
   * it commits.
   */
  notifyQueued(): void {
    this.store.afterCommit(() => {
      this.wakeUps.notify('deliveries-queued');
      this.wakeUps.notify('deliveries-changed');
    });
  }

  /**
   * Calls `listener` for deliveries queueing settled (the metrics count them, as the worker counts
   * its outcomes). Runs inside the caller's transaction: a request whose transaction then rolls
   * back (a failing disk) is counted all the same. Returns the function that removes the listener.
   */
  onSettled(listener: (settled: SettledAtEnqueue) => void): () => void {
    this.settledListeners.add(listener);
    return () => void this.settledListeners.delete(listener);
  }

  /** Calls `listener` for each message queued with the deliveries that will be sent (the metrics count Live Activity pushes by priority); as onSettled. */
  onQueued(listener: (queued: { appId: string; content: MessageContent; count: number }) => void): () => void {
    this.queuedListeners.add(listener);
    return () => void this.queuedListeners.delete(listener);
  }

  /**
   * Deliveries that could not be sent at all (an iPhone without a push-to-start token at a start):
   * told like the worker's failures, the delivery.failed webhook in the same transaction and
   * islet_deliveries_total (provider none: decided without sending).
   */
  private async failedAtEnqueue(tx: Tx, appId: string, messageId: number, kind: DeliveryKind, count: number, now: number): Promise<void> {
    const rows = await outboxRepository(tx).failedOf(messageId);
    await webhookEventsRepository(tx).emitAll(rows.map((r) => deliveryFailed({ ...r, attempts: 0 })), now);
    this.settled({ appId, provider: 'none', kind, outcome: 'failed', count });
  }

  private queued(appId: string, content: MessageContent, count: number): void {
    if (count > 0) for (const listener of this.queuedListeners) listener({ appId, content, count });
  }

  private settled(settled: SettledAtEnqueue): void {
    this.settledListeners.forEach((listener) => listener(settled));
  }
}

type DeliveryKind = ReturnType<typeof messageKind>;

/** The delivery rows of `targets`, calling `onFailed` for each that failed at once, `onDropped` for each dropped (a frequency cap). */
function* deliveryRows(targets: Iterable<DeliveryTarget>, onFailed: () => void, onDropped: () => void = () => {}): Generator<NewDelivery> {
  for (const t of targets) {
    const status = t.status ?? 'pending';
    if (status === 'failed') onFailed();
    else if (status === 'dropped') onDropped();
    // Held at queueing without a kind means waiting for the activity's own token (see DeliveryTarget.status).
    yield { deviceId: t.deviceId, tokenId: t.tokenId ?? null, status, holdKind: status === 'held' ? (t.holdKind ?? 'token') : null, reason: t.reason ?? null, dueAt: t.dueAt };
  }
}

/** Deliveries that queueing settled without the worker (failed at once, or superseded), counted for islet_deliveries_total. */
export interface SettledAtEnqueue {
  appId: string;
  provider: string;
  kind: DeliveryKind;
  outcome: 'failed' | 'superseded' | 'dropped';
  count: number;
}
