import type { Sql } from '../../db/sql/sql';
import { DEFAULT_EXPIRY_DAYS } from './web-push.service';
import { webSubscriptionsRepository } from './web-subscriptions.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One app's expiry at a moment: subscriptions last registered at or before `cutoff` are expired. */
export interface SubscriptionExpiry {
  appId: string;
  days: number;
  cutoff: number;
  /** What an expired subscription's token says (`tokens.invalid_reason`). */
  reason: string;
}

/**
 * Each app's expiry of web subscriptions at `now`: `[apps.web_push] expiry_days` (default 60)
 * after the subscription was last registered.
 * @example (await subscriptionExpiries(tx, now)).find((e) => e.appId === 'shop')?.cutoff // now - 60 days
 */
export async function subscriptionExpiries(sql: Sql, now: number): Promise<SubscriptionExpiry[]> {
  return (await webSubscriptionsRepository(sql).expiries(DEFAULT_EXPIRY_DAYS)).map(({ appId, days }) => ({
    appId,
    days,
    cutoff: now - days * DAY_MS,
    reason: `not registered again for ${days} days ([apps.web_push] expiry_days)`,
  }));
}
