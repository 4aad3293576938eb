import type { IdempotencyRepository, IdempotencyRow } from '../../../modules/idempotency/idempotency.repository';
import { all, one, run, type PgScope } from '../query';

/** `idempotency_keys` on PostgreSQL. */
export function idempotencyPg({ q }: PgScope): IdempotencyRepository {
  return {
    find: (appId, key) =>
      one<IdempotencyRow>(
        q,
        `SELECT fingerprint, state, status, content_type AS "contentType", body, created_at AS "createdAt" FROM idempotency_keys WHERE app_id = $1 AND key = $2`,
        [appId, key],
        ['createdAt'],
      ),
    claim: async (appId, key, fingerprint, now, expiredBefore) =>
      (await run(
        q,
        `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at) VALUES ($1, $2, $3, 'running', $4)
           ON CONFLICT (app_id, key) DO UPDATE SET fingerprint = $3, state = 'running', status = NULL, content_type = NULL, body = NULL, created_at = $4
           WHERE idempotency_keys.created_at < $5`,
        [appId, key, fingerprint, now, expiredBefore],
      )) > 0,
    async complete(appId, key, answer) {
      await run(q, `UPDATE idempotency_keys SET state = 'done', status = $1, content_type = $2, body = $3 WHERE app_id = $4 AND key = $5 AND state = 'running'`, [
        answer.status,
        answer.contentType,
        answer.body,
        appId,
        key,
      ]);
    },
    async release(appId, key) {
      await run(q, `DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND state = 'running'`, [appId, key]);
    },
    releaseAllRunning: () => run(q, `DELETE FROM idempotency_keys WHERE state = 'running'`),
    all: () => all<{ appId: string; key: string; status: number | null }>(q, `SELECT app_id AS "appId", key, status FROM idempotency_keys ORDER BY created_at`),
    prune: (before) => run(q, 'DELETE FROM idempotency_keys WHERE created_at < $1', [before]),
  };
}
