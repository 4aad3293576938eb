import type { AppContext } from '../../../context';
import { isoTime } from '../../../lib/clock';
import { usedMinutes } from '../../live-activities/live-activities.usage';
import { billingPeriod } from '../../live-activities/billing-period';
import { webhookEventsRepository } from '../../webhooks/webhook-events.repository';

/** The share of a plan's minutes at which `quota.warning` goes out. */
export const QUOTA_WARNING_SHARE = 0.8;

/**
 * `quota.warning` (80% of the plan's minutes used in the billing period) and `quota.exceeded`
 * (all of them), each at most once a period per app, for apps with a webhook endpoint and a plan
 * with a positive `minutes`. Run by the quota job after it enforced the quotas.
 */
export async function emitQuotaEvents(ctx: AppContext, now: number): Promise<void> {
  const period = billingPeriod(now);
  for (const app of await webhookEventsRepository(ctx.db.sql).appsWithEndpoints()) {
    const plan = ctx.config.plans[app.plan];
    if (!plan || plan.minutes === undefined || plan.minutes <= 0) continue;
    const used = await usedMinutes(ctx.db.sql, app.id, now);
    const levels = [
      ['quota.warning', QUOTA_WARNING_SHARE],
      ['quota.exceeded', 1],
    ] as const;
    for (const [type, share] of levels) {
      if (used < plan.minutes * share) continue;
      await ctx.db.write(async (tx) => {
        if (await webhookEventsRepository(tx).hadEventSince(app.id, type, period.start)) return;
        await webhookEventsRepository(tx).emit(
          app.id,
          type,
          {
            usedMinutes: Math.round(used * 100) / 100,
            minutes: plan.minutes,
            overage: plan.overage,
            periodStart: isoTime(period.start),
            periodEnd: isoTime(period.end),
          },
          now,
        );
      });
    }
  }
}
