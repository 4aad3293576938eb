import type { Db } from '../database';
import { promised } from '../promised';
import type { EndpointHold, EndpointHoldsRepository } from '../../../modules/delivery/endpoint-health/endpoint-holds.repository';
import type { HoldKind } from '../../../modules/delivery/holds/hold-kind';

/**
 * The outbox statements of endpoint health: deliveries held while their endpoint is down have the
 * hold kind apns_down or fcm_down and a reason naming the endpoint (endpointHold), so a recovery
 * releases exactly those, and one of them at a time can be released to serve as the probe.
 */
function endpointHoldsStatements(db: Db) {
  const client = db.$client;
  const releaseAll = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND app_id = ?2 AND hold_kind = ?3 AND reason = ?4`,
  );
  const releaseOne = client.query(
    `UPDATE deliveries SET status = 'pending', hold_kind = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE id = (SELECT id FROM deliveries WHERE status = 'held' AND app_id = ?2 AND hold_kind = ?3 AND reason = ?4 ORDER BY next_attempt_at LIMIT 1)`,
  );
  const releaseProvider = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND app_id = ?2 AND hold_kind = ?3`,
  );
  const recover = client.query(
    `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, next_attempt_at = ?1, updated_at = ?1
      WHERE status = 'held' AND hold_kind IN ('apns_down', 'fcm_down')`,
  );
  const count = client.query<{ reason: string; n: number }, [string]>(
    `SELECT reason, count(*) AS n FROM deliveries WHERE status = 'held' AND app_id = ? AND hold_kind IN ('apns_down', 'fcm_down') GROUP BY reason`,
  );
  return {
    /** The endpoint is back: everything held for it is due now. Returns how many waited. */
    release(appId: string, hold: EndpointHold, now: number): number {
      return releaseAll.run(now, appId, hold.kind, hold.reason).changes;
    },
    /** Makes one held delivery of the endpoint due now, to serve as its probe. */
    releaseProbe(appId: string, hold: EndpointHold, now: number): boolean {
      return releaseOne.run(now, appId, hold.kind, hold.reason).changes > 0;
    },
    /** The app's credentials for the provider changed: whatever was held for any of its down endpoints is due now. */
    releaseProvider(appId: string, kind: HoldKind, now: number): number {
      return releaseProvider.run(now, appId, kind).changes;
    },
    /** At start: endpoint health lives in memory, so whatever a previous process held for a down endpoint is due again. */
    recover(now: number): number {
      return recover.run(now).changes;
    },
    /** Deliveries held per down endpoint of an app, by their reason. */
    heldByReason(appId: string): Map<string, number> {
      return new Map(count.all(appId).map((r) => [r.reason, r.n]));
    },
  };
}

/** The repository over endpointHoldsStatements: every method returns a Promise. */
export const endpointHoldsRepository = (db: Db): EndpointHoldsRepository => promised(endpointHoldsStatements(db));
