import type { Db } from '../database';
import { promised } from '../promised';
import type { IdempotencyRow, IdempotencyRepository } from '../../../modules/idempotency/idempotency.repository';

/** The statements on `idempotency_keys`, prepared once. */
function idempotencyStatements(db: Db) {
  const client = db.$client;
  const find = client.query<IdempotencyRow, [string, string]>(
    `SELECT fingerprint, state, status, content_type AS contentType, body, created_at AS createdAt
       FROM idempotency_keys WHERE app_id = ? AND key = ?`,
  );
  const claim = client.query(
    `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at) VALUES (?1, ?2, ?3, 'running', ?4)
       ON CONFLICT (app_id, key) DO UPDATE SET fingerprint = ?3, state = 'running', status = NULL, content_type = NULL, body = NULL, created_at = ?4
       WHERE idempotency_keys.created_at < ?5`,
  );
  const complete = client.query(
    `UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ? WHERE app_id = ? AND key = ? AND state = 'running'`,
  );
  const release = client.query(`DELETE FROM idempotency_keys WHERE app_id = ? AND key = ? AND state = 'running'`);
  const releaseAll = client.query(`DELETE FROM idempotency_keys WHERE state = 'running'`);
  const prune = client.query(`DELETE FROM idempotency_keys WHERE created_at < ?`);
  const all = client.query<{ appId: string; key: string; status: number | null }, []>(`SELECT app_id AS appId, key, status FROM idempotency_keys ORDER BY created_at`);

  return {
    find: (appId: string, key: string) => find.get(appId, key) ?? undefined,

    /**
     * Takes the key for a new request (a row older than `expiredBefore` counts as absent).
     * Returns false when another row holds it: the caller reads that row.
     */
    claim(appId: string, key: string, fingerprint: string, now: number, expiredBefore: number): boolean {
      return claim.run(appId, key, fingerprint, now, expiredBefore).changes > 0;
    },

    complete(appId: string, key: string, answer: { status: number; contentType: string | null; body: string }): void {
      complete.run(answer.status, answer.contentType, answer.body, appId, key);
    },

    release(appId: string, key: string): void {
      release.run(appId, key);
    },

    /** At start: no request is in flight, so a `running` row is one a stopped process left. */
    releaseAllRunning(): number {
      return releaseAll.run().changes;
    },

    /** Every key held, oldest first (what tests and an operator's check look at). */
    all: () => all.all(),

    /** Deletes keys created before `before` (the retention job). */
    prune(before: number): number {
      return prune.run(before).changes;
    },
  };
}

/** The repository over idempotencyStatements: every method returns a Promise. */
export const idempotencyRepository = (db: Db): IdempotencyRepository => promised(idempotencyStatements(db));
