import type { FailedDeliveryFacts } from '../../webhooks/delivery-events';
import type { HoldKind } from '../holds/hold-kind';

/** One delivery row as queueing writes it. */
export interface NewDelivery {
  deviceId: string;
  tokenId: number | null;
  status: 'pending' | 'held' | 'failed';
  /** Set when held (hold-kind.ts). */
  holdKind: HoldKind | null;
  reason: string | null;
}

/** A delivery superseded by a newer event, for the metrics. */
export interface Superseded {
  appId: string;
  provider: string | null;
}

/** A delivery that failed at once, as its delivery.failed event tells it (no attempt was made). */
export type FailedAtEnqueue = Omit<FailedDeliveryFacts, 'attempts'>;

/** The outbox repository, one implementation for both databases: src/db/repositories/outbox.ts. */
export interface OutboxRepository {
  /** Writes a message; returns its id. */
  insertMessage(appId: string, kind: string, activityId: string | null, content: string, templateSlug: string, now: number): Promise<number>;
  /**
   * Writes one delivery of the message per row, due now. Rows may be streamed from a query (a large
   * send): written as they come, INSERT_BATCH at a time. Returns how many were written.
   */
  insertDeliveries(message: { appId: string; id: number; activityId: string | null }, rows: Iterable<NewDelivery>, now: number): Promise<number>;
  /** The message's deliveries that failed at once. */
  failedOf(messageId: number): Promise<FailedAtEnqueue[]>;
  /**
   * An activity's update or end: supersedes its updates not sent yet to the rows' devices (one row
   * per superseded delivery returned), then writes the message and one delivery per row (one end user's devices,
   * a few), due now. On PostgreSQL one statement.
   */
  queueFollowUp(
    message: { appId: string; kind: string; activityId: string; content: string; templateSlug: string },
    rows: readonly NewDelivery[],
    now: number,
  ): Promise<{ messageId: number; superseded: Superseded[] }>;
  /** Retention: deletes finished deliveries last changed before `before`, then the messages older than that nobody refers to. */
  prune(before: number): Promise<{ deliveries: number; messages: number }>;
  /** Makes the deliveries held for an activity instance's token due now, at that token; returns how many. */
  releaseHeld(target: { activityId: string; deviceId: string; tokenId: number }, now: number): Promise<number>;
}
