export interface IdempotencyRow {
  fingerprint: string;
  state: 'running' | 'done';
  status: number | null;
  contentType: string | null;
  body: string | null;
  createdAt: number;
}

/** The idempotency repository: what every database implements (one implementation for both databases: src/db/repositories/idempotency.ts). */
export interface IdempotencyRepository {
  find(appId: string, key: string): Promise<IdempotencyRow | undefined>;
  /**
   * Takes the key for a new request (a row older than `expiredBefore` counts as absent).
   * Returns false when another row holds it: the caller reads that row.
   */
  claim(appId: string, key: string, fingerprint: string, now: number, expiredBefore: number): Promise<boolean>;
  complete(appId: string, key: string, answer: { status: number; contentType: string | null; body: string }): Promise<void>;
  release(appId: string, key: string): Promise<void>;
  /**
   * At start: no request is in flight, so a `running` row is one a stopped process left. PostgreSQL:
   * only keys of instances without a live lease (db/postgres/claims.ts).
   */
  releaseAllRunning(): Promise<number>;
  /** Every key held, oldest first (what tests and an operator's check look at). */
  all(): Promise<{ appId: string; key: string; status: number | null }[]>;
  /** Deletes keys created before `before` (the retention job). */
  prune(before: number): Promise<number>;
}
