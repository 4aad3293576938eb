import type { EndpointHoldsRepository } from '../../modules/delivery/endpoint-health/endpoint-holds.repository';
import type { Sql } from '../sql/sql';
import { statement } from '../sql/statement';

// Deliveries held while their endpoint is down have the hold kind apns_down or fcm_down and a
// reason naming the endpoint (endpointHold), so a recovery releases exactly those, and one of them
// at a time can be released to serve as the probe.
const releaseAll = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND app_id = $2 AND hold_kind = $3 AND reason = $4`,
);
const releaseOne = statement(
  `UPDATE deliveries SET status = 'pending', hold_kind = NULL, next_attempt_at = $1, updated_at = $1
    WHERE id = (SELECT id FROM deliveries WHERE status = 'held' AND app_id = $2 AND hold_kind = $3 AND reason = $4 ORDER BY next_attempt_at LIMIT 1)`,
);
const releaseProvider = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND app_id = $2 AND hold_kind = $3`,
);
const recover = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND hold_kind IN ('apns_down', 'fcm_down')`,
);
const heldByReason = statement<{ reason: string; n: number }>(
  `SELECT reason, count(*) AS n FROM deliveries WHERE status = 'held' AND app_id = $1 AND hold_kind IN ('apns_down', 'fcm_down') GROUP BY reason`,
  { numbers: ['n'] },
);

/** The outbox statements of endpoint health (modules/delivery/endpoint-health). */
export function endpointHoldsRepository(sql: Sql): EndpointHoldsRepository {
  return {
    release: async (appId, hold, now) => sql.run(releaseAll, [now, appId, hold.kind, hold.reason]),
    releaseProbe: async (appId, hold, now) => (await sql.run(releaseOne, [now, appId, hold.kind, hold.reason])) > 0,
    releaseProvider: (appId, kind, now) => sql.run(releaseProvider, [now, appId, kind]),
    recover: (now) => sql.run(recover, [now]),
    heldByReason: async (appId) => new Map((await sql.all(heldByReason, [appId])).map((r) => [r.reason, r.n])),
  };
}
