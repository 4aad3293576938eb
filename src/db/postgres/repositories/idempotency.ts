import type { IdempotencyRepository, IdempotencyRow } from '../../../modules/idempotency/idempotency.repository';
import { orphaned } from '../claims';
import { all, one, run, type PgScope } from '../query';

/**
 * `idempotency_keys` on PostgreSQL. A running key names the instance answering it (claims.ts): only
 * that instance completes or releases it, and recovery frees only keys of instances that died.
 */
export function idempotencyPg({ q, owner }: PgScope): IdempotencyRepository {
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
        `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, created_at, claimed_by) VALUES ($1, $2, $3, 'running', $4, $6)
           ON CONFLICT (app_id, key) DO UPDATE SET fingerprint = $3, state = 'running', status = NULL, content_type = NULL, body = NULL, created_at = $4, claimed_by = $6
           WHERE idempotency_keys.created_at < $5`,
        [appId, key, fingerprint, now, expiredBefore, owner],
      )) > 0,
    async complete(appId, key, answer) {
      await run(
        q,
        `UPDATE idempotency_keys SET state = 'done', status = $1, content_type = $2, body = $3, claimed_by = NULL
          WHERE app_id = $4 AND key = $5 AND state = 'running' AND claimed_by IS NOT DISTINCT FROM $6`,
        [answer.status, answer.contentType, answer.body, appId, key, owner],
      );
    },
    async release(appId, key) {
      await run(q, `DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND state = 'running' AND claimed_by IS NOT DISTINCT FROM $3`, [appId, key, owner]);
    },
    releaseAllRunning: () => run(q, `DELETE FROM idempotency_keys WHERE state = 'running' AND ${orphaned('claimed_by')}`),
    all: () => all<{ appId: string; key: string; status: number | null }>(q, `SELECT app_id AS "appId", key, status FROM idempotency_keys ORDER BY created_at`),
    prune: (before) => run(q, 'DELETE FROM idempotency_keys WHERE created_at < $1', [before]),
  };
}
