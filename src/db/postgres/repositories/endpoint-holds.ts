import type { EndpointHoldsRepository } from '../../../modules/delivery/endpoint-health/endpoint-holds.repository';
import { all, run, type PgScope } from '../query';

/** The outbox statements of endpoint health on PostgreSQL (see db/sqlite/repositories/endpoint-holds.ts). */
export function endpointHoldsPg({ q }: PgScope): EndpointHoldsRepository {
  return {
    release: (appId, hold, now) =>
      run(
        q,
        `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1
          WHERE status = 'held' AND app_id = $2 AND hold_kind = $3 AND reason = $4`,
        [now, appId, hold.kind, hold.reason],
      ),
    releaseProbe: async (appId, hold, now) =>
      (await run(
        q,
        `UPDATE deliveries SET status = 'pending', hold_kind = NULL, next_attempt_at = $1, updated_at = $1
          WHERE id = (SELECT id FROM deliveries WHERE status = 'held' AND app_id = $2 AND hold_kind = $3 AND reason = $4 ORDER BY next_attempt_at LIMIT 1)`,
        [now, appId, hold.kind, hold.reason],
      )) > 0,
    releaseProvider: (appId, kind, now) =>
      run(
        q,
        `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1 WHERE status = 'held' AND app_id = $2 AND hold_kind = $3`,
        [now, appId, kind],
      ),
    recover: (now) =>
      run(
        q,
        `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1 WHERE status = 'held' AND hold_kind IN ('apns_down', 'fcm_down')`,
        [now],
      ),
    heldByReason: async (appId) =>
      new Map(
        (
          await all<{ reason: string; n: number }>(
            q,
            `SELECT reason, count(*)::int AS n FROM deliveries WHERE status = 'held' AND app_id = $1 AND hold_kind IN ('apns_down', 'fcm_down') GROUP BY reason`,
            [appId],
          )
        ).map((r) => [r.reason, r.n]),
      ),
  };
}
