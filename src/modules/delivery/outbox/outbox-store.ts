import type { ClaimedDelivery } from '../worker/delivery.routing';
import type { DeliveryResult, RecordedOutcomes } from '../worker/delivery.types';
import type { DeliveryRepository } from '../worker/delivery.repository';

/**
 * The delivery worker's two statements on the outbox, asynchronous so they can run on another
 * thread (outbox-thread.client.ts) while this one drives HTTP/2. Both keep the repository's guarantees:
 * a claim takes each row once (marked `sending`), a record writes a batch in one transaction.
 */
export interface OutboxStore {
  claim(now: number, limit: number): Promise<ClaimedDelivery[]>;
  record(results: DeliveryResult[], now: number): Promise<RecordedOutcomes>;
  close(): Promise<void>;
}

/** The outbox on the caller's own connection and thread (tests, an in-memory database). */
export function inlineStore(repo: DeliveryRepository): OutboxStore {
  return {
    claim: async (now, limit) => repo.claim(now, limit),
    record: async (results, now) => repo.record(results, now),
    close: async () => {},
  };
}
