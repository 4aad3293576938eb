import type { EndpointHold } from './endpoint-holds.types';
import type { Sql } from '../../../db/sql/sql';
import { statement } from '../../../db/sql/statement';
import { repository } from '../../../db/sql/repository';
import type { HoldKind } from '../holds/hold-kind';

// Deliveries held while their endpoint is down have the hold kind apns_down or fcm_down and their
// endpoint in hold_endpoint (endpointHold), so a recovery releases exactly those, and one of them
// at a time can be released to serve as the probe. The reason is for people: never read here.
const releaseAll = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, hold_endpoint = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND app_id = $2 AND hold_kind = $3 AND hold_endpoint = $4`,
);
const releaseOne = statement(
  `UPDATE deliveries SET status = 'pending', hold_kind = NULL, hold_endpoint = NULL, next_attempt_at = $1, updated_at = $1
    WHERE id = (SELECT id FROM deliveries WHERE status = 'held' AND app_id = $2 AND hold_kind = $3 AND hold_endpoint = $4 ORDER BY next_attempt_at LIMIT 1)`,
);
const releaseProvider = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, hold_endpoint = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND app_id = $2 AND hold_kind = $3`,
);
const recover = statement(
  `UPDATE deliveries SET status = 'pending', reason = NULL, hold_kind = NULL, hold_endpoint = NULL, next_attempt_at = $1, updated_at = $1
    WHERE status = 'held' AND hold_kind IN ('apns_down', 'fcm_down', 'webpush_down')`,
);
const heldByEndpoint = statement<{ provider: HeldProvider; endpoint: string; n: number }>(
  `SELECT CASE hold_kind WHEN 'apns_down' THEN 'apns' WHEN 'fcm_down' THEN 'fcm' ELSE 'webpush' END AS provider, hold_endpoint AS endpoint, count(*) AS n
     FROM deliveries WHERE status = 'held' AND app_id = $1 AND hold_kind IN ('apns_down', 'fcm_down', 'webpush_down') GROUP BY hold_kind, hold_endpoint`,
  { numbers: ['n'] },
);

/** The outbox statements of endpoint health (modules/delivery/endpoint-health). */
export const endpointHoldsRepository = repository((sql: Sql) => {
  return {
    /** The endpoint is back: everything held for it is due now. Returns how many waited. */
    release: async (appId: string, hold: EndpointHold, now: number): Promise<number> => sql.run(releaseAll, [now, appId, hold.kind, hold.endpoint]),
    /** Makes one held delivery of the endpoint due now, to serve as its probe. */
    releaseProbe: async (appId: string, hold: EndpointHold, now: number): Promise<boolean> => (await sql.run(releaseOne, [now, appId, hold.kind, hold.endpoint])) > 0,
    /** The app's credentials for the provider changed: whatever was held (`kind`: that provider's down hold) for any of its endpoints is due now. */
    releaseProvider: (appId: string, kind: HoldKind, now: number): Promise<number> => sql.run(releaseProvider, [now, appId, kind]),
    /** At start: endpoint health lives in memory, so whatever a previous process held for a down endpoint is due again. */
    recover: (now: number): Promise<number> => sql.run(recover, [now]),
    /** Deliveries held per down endpoint of an app, keyed `<provider> <endpoint>` (heldKey). */
    heldByEndpoint: async (appId: string): Promise<Map<string, number>> => new Map((await sql.all(heldByEndpoint, [appId])).map((r) => [heldKey(r.provider, r.endpoint), r.n])),
  };
});

/** The key of heldByEndpoint's counts. */
export const heldKey = (provider: HeldProvider, endpoint: string) => `${provider} ${endpoint}`;

type HeldProvider = 'apns' | 'fcm' | 'webpush';

export type EndpointHoldsRepository = ReturnType<typeof endpointHoldsRepository>;
