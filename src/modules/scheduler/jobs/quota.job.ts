import type { AppContext } from '../../../context';
import { HttpError } from '../../../lib/errors';
import { appsService } from '../../apps/apps.service';
import { broadcastsService } from '../../broadcasts/broadcasts.service';
import { credentialsReset } from '../../delivery/endpoint-health/endpoint-reset';
import { endActivities } from '../../live-activities/live-activities.delivery';
import { minutesExhausted, usedMinutes } from '../../live-activities/live-activities.usage';
import { billingPeriod } from '../../live-activities/billing-period';
import { quotaReachedAt } from '../quota';
import type { Job } from '../scheduler';
import { expireIosActivities } from './ios-expiry.job';
import { emitQuotaEvents } from './quota-events';
import { broadcastsRepository } from '../../broadcasts/broadcasts.repository';
import { activityUsageRepository } from '../../live-activities/activity-usage.repository';

/**
 * On plans without overage, ends every Active activity of an app once its minutes are used up,
 * at the moment they were (so a restart after downtime ends them when they should have ended and
 * meters accordingly). iOS expiry runs first so that expired activities stop counting at 8 hours.
 * A previous period is checked too when activities still run from it.
 */
export async function enforceQuotas(ctx: AppContext, now: number): Promise<number> {
  await expireIosActivities(ctx, now);
  const repos = ctx.db.sql;
  let ended = 0;
  const apps = await activityUsageRepository(repos).appsWithActive();
  for (const app of apps) {
    const plan = ctx.config.plans[app.plan];
    if (!plan || plan.overage || plan.minutes === undefined) continue;
    const current = billingPeriod(now);
    const periods = [billingPeriod(current.start - 1), current];
    for (const period of periods) {
      const active = await activityUsageRepository(repos).active(app.id);
      if (active.length === 0 || active[0]!.startedAt >= period.end) continue;
      const at = await quotaReachedAt(repos, app.id, plan, period, Math.min(now, period.end), active);
      if (at === undefined) continue;
      // `active` and `at` are read outside the write, so an activity ended meanwhile may be in the
      // list: safe, since markEnded ends only an Active row and endActivities skips the others.
      const options = { reason: 'quota' as const, endedAt: (a: { startedAt: number }) => Math.max(at, a.startedAt), dismissalAt: now, now };
      const done = await ctx.db.write((tx) => endActivities(ctx.outbox, tx, active, options));
      ended += done.length;
      ctx.logger.info('minutes quota reached: activities ended', { appId: app.id, count: done.length, reachedAt: new Date(at).toISOString() });
    }
  }
  return ended + (await endBroadcastsOverQuota(ctx, now));
}

/**
 * Broadcasts count their running time toward the minutes: on plans without overage, the running
 * broadcasts of an app whose minutes are used up end now (reason quota), like its activities.
 */
async function endBroadcastsOverQuota(ctx: AppContext, now: number): Promise<number> {
  let ended = 0;
  for (const app of await broadcastsRepository(ctx.db.sql).appsWithActive()) {
    const plan = ctx.config.plans[app.plan];
    if (!plan || !minutesExhausted(plan, await usedMinutes(ctx.db.sql, app.appId, now))) continue;
    const broadcasts = broadcastsService(ctx, appsService(ctx, credentialsReset(ctx)));
    let count = 0;
    for (const id of app.ids) {
      try {
        await broadcasts.end(app.appId, id, {}, 'quota');
        count++;
      } catch (e) {
        // Ended meanwhile (through the API, or by another leader's run during a takeover).
        if (!(e instanceof HttpError && e.status === 409)) throw e;
      }
    }
    ended += count;
    ctx.logger.info('minutes quota reached: broadcasts ended', { appId: app.appId, count });
  }
  return ended;
}

export function quotaJob(ctx: AppContext): Job {
  return {
    name: 'quota',
    intervalMs: ctx.config.scheduler.tick_seconds * 1000,
    run: async (now) => {
      await enforceQuotas(ctx, now);
      await emitQuotaEvents(ctx, now);
    },
  };
}
