import { ENDPOINT_DOWN_PATTERN } from '../../../modules/delivery/endpoint-health/endpoint-health';
import type { EndpointHoldsRepository } from '../../../modules/delivery/endpoint-health/endpoint-holds.repository';
import { all, run, type PgScope } from '../query';

/** The outbox statements of endpoint health on PostgreSQL (see db/sqlite/repositories/endpoint-holds.ts). */
export function endpointHoldsPg({ q }: PgScope): EndpointHoldsRepository {
  return {
    release: (appId, reason, now) =>
      run(q, `UPDATE deliveries SET status = 'pending', reason = NULL, next_attempt_at = $1, updated_at = $1 WHERE status = 'held' AND app_id = $2 AND reason = $3`, [
        now,
        appId,
        reason,
      ]),
    releaseProbe: async (appId, reason, now) =>
      (await run(
        q,
        `UPDATE deliveries SET status = 'pending', next_attempt_at = $1, updated_at = $1
          WHERE id = (SELECT id FROM deliveries WHERE status = 'held' AND app_id = $2 AND reason = $3 ORDER BY next_attempt_at LIMIT 1)`,
        [now, appId, reason],
      )) > 0,
    releaseProvider: (appId, provider, now) =>
      run(q, `UPDATE deliveries SET status = 'pending', reason = NULL, next_attempt_at = $1, updated_at = $1 WHERE status = 'held' AND app_id = $2 AND reason LIKE $3`, [
        now,
        appId,
        `${provider} channel down: %`,
      ]),
    recover: (now) =>
      run(q, `UPDATE deliveries SET status = 'pending', reason = NULL, next_attempt_at = $1, updated_at = $1 WHERE status = 'held' AND reason LIKE $2`, [
        now,
        ENDPOINT_DOWN_PATTERN,
      ]),
    heldByReason: async (appId) =>
      new Map(
        (
          await all<{ reason: string; n: number }>(
            q,
            `SELECT reason, count(*)::int AS n FROM deliveries WHERE status = 'held' AND app_id = $1 AND reason LIKE $2 GROUP BY reason`,
            [appId, ENDPOINT_DOWN_PATTERN],
          )
        ).map((r) => [r.reason, r.n]),
      ),
  };
}
