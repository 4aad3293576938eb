import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';

/** A web subscription not registered again in time, and whose device it is (for device.token_invalidated). */
export interface StaleSubscription {
  id: number;
  deviceId: string;
  endUserId: string;
}

// Apps without Web Push keep the default: their browsers' subscriptions age all the same.
const expiries = statement<{ appId: string; days: number }>(
  `SELECT a.id AS "appId", COALESCE(w.expiry_days, $1) AS days FROM apps a LEFT JOIN web_push w ON w.app_id = a.id ORDER BY a.id`,
  { numbers: ['days'] },
);
// Both read tokens_webpush_reported: (app, reported_at) of the subscriptions only.
const stale = statement<StaleSubscription>(
  `SELECT t.id, t.device_id AS "deviceId", d.end_user_id AS "endUserId" FROM tokens t JOIN devices d ON d.id = t.device_id
    WHERE t.app_id = $1 AND t.kind = 'webpush_subscription' AND t.reported_at <= $2 AND t.state = 'active' ORDER BY t.reported_at LIMIT $3`,
  { numbers: ['id'] },
);
const removeStale = statement(
  `DELETE FROM devices WHERE id IN (SELECT device_id FROM tokens WHERE app_id = $1 AND kind = 'webpush_subscription' AND reported_at <= $2)`,
);

/**
 * Web subscriptions by age (issue 46 point 6): a browser's subscription is registered again by its
 * page (tokens.reported_at); one that is not for the app's `expiry_days` stops being a target and
 * goes at retention, since Apple keeps answering 201 after a user revokes permission.
 */
export const webSubscriptionsRepository = repository((sql: Sql) => ({
  /** Every app's expiry in days: its `[apps.web_push] expiry_days`, else `fallback`. */
  expiries: (fallback: number): Promise<{ appId: string; days: number }[]> => sql.all(expiries, [fallback]),
  /** Active subscriptions of the app last registered at or before `cutoff`, oldest first, at most `limit`. */
  stale: (appId: string, cutoff: number, limit: number): Promise<StaleSubscription[]> => sql.all(stale, [appId, cutoff, limit]),
  /** Deletes the web devices of the app whose subscription was last registered at or before `cutoff`; answers how many. */
  removeStale: (appId: string, cutoff: number): Promise<number> => sql.run(removeStale, [appId, cutoff]),
}));
