import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { usedMinutes } from '../live-activities/live-activities.usage';
import { billingPeriod } from '../live-activities/billing-period';
import { activityUsageRepository } from '../live-activities/activity-usage.repository';

const MINUTE_MS = 60_000;
const round = (minutes: number) => Math.round(minutes * 100) / 100;

/** An app's live activity minutes in the current billing period, against its plan, with a daily series. */
export async function usageReport(ctx: AppContext, appId: string, planName: string) {
  const now = ctx.clock.now();
  const period = billingPeriod(now);
  const plan = ctx.config.plans[planName];
  const repos = ctx.db.sql;
  const used = await usedMinutes(repos, appId, now);
  const quota = plan?.minutes ?? null;
  const daily = await activityUsageRepository(repos).dailyMs(appId, period.start, now);
  const active = await activityUsageRepository(repos).activeCount(appId);
  return {
    plan: planName,
    // An unknown plan allows nothing, as at start (live-activities.service.ts).
    liveActivities: plan?.live_activities ?? false,
    periodStart: isoTime(period.start),
    periodEnd: isoTime(period.end),
    minutesUsed: round(used),
    quota,
    overage: plan?.overage ?? false,
    overageMinutes: quota === null ? 0 : round(Math.max(0, used - quota)),
    activeActivities: active,
    daily: daily.map((d) => ({ date: isoTime(d.day).slice(0, 10), minutes: round(d.ms / MINUTE_MS) })),
  };
}
