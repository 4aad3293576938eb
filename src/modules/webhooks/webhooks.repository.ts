export interface EndpointRow {
  id: string;
  appId: string;
  url: string;
  description: string | null;
  /** JSON array, or null for every event. */
  events: string | null;
  secretSealed: string;
  /** The secret before the last rotation, still signing until `previousSecretUntil`. */
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface AttemptRow {
  id: number;
  eventId: string;
  eventType: string;
  attempt: number;
  at: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** A due delivery, joined with what sending it needs. */
export interface DueDelivery {
  id: number;
  attempts: number;
  eventId: string;
  eventType: string;
  body: string;
  endpointId: string;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  failingSince: number | null;
}

/** The webhooks repository: one implementation for both databases, src/db/repositories/webhooks.ts. */
export interface WebhooksRepository {
  list(appId: string): Promise<EndpointRow[]>;
  find(appId: string, id: string): Promise<EndpointRow | undefined>;
  insert(row: EndpointRow): Promise<void>;
  /** Saves url, description, events, enabled and the secrets; enabling again clears the mark and the failure streak. */
  update(row: EndpointRow, now: number): Promise<void>;
  remove(id: string): Promise<void>;
  attempts(endpointId: string, limit: number, offset: number): Promise<{ rows: AttemptRow[]; total: number }>;
  /**
   * Takes up to `limit` due deliveries (marking them `sending`), oldest first, and at most
   * `perEndpoint` for each endpoint together with the posts it has in flight (`busy`).
   */
  claim(now: number, limit: number, perEndpoint?: number, busy?: ReadonlyMap<string, number>): Promise<DueDelivery[]>;
  /**
   * Writes one attempt and its consequences in one transaction: the delivery's new state, the
   * endpoint's failure streak, and, when `disableReason` is given, the endpoint disabled with its
   * pending deliveries failed.
   */
  record(
    d: DueDelivery,
    result: { ok: boolean; status: number | null; error: string | null; durationMs: number; at: number },
    next: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: number; disableReason?: string },
  ): Promise<void>;
  /**
   * At start: what a previous process was sending is due again (receivers deduplicate by webhook-id).
   * PostgreSQL: only claims of instances without a live lease (db/postgres/claims.ts).
   */
  recoverSending(now: number): Promise<number>;
  /**
   * Deliveries `sending` since before `before` go back to the queue: a claim whose answer was lost
   * with its connection, or an attempt that could not be recorded (the database away), would
   * otherwise stay `sending` while the process that claimed it lives. Receivers deduplicate by
   * webhook-id, so the rare late second post is harmless.
   */
  releaseStale(before: number, now: number): Promise<number>;
  /**
   * Deletes finished deliveries and attempts older than `before`, and events left without deliveries
   * older than `eventsBefore` (in the caller's transaction: the retention job's).
   */
  prune(before: number, eventsBefore: number): Promise<number>;
}
