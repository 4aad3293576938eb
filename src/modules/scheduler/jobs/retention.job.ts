import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import { IDEMPOTENCY_TTL_MS } from '../../idempotency/idempotency';
import type { Job } from '../scheduler';
import { billingPeriod } from '../../live-activities/billing-period';
import { scheduledSendsRepository } from '../../notifications/schedule/scheduled-sends.repository';
import { webhooksRepository } from '../../webhooks/webhooks.repository';
import { endUsersRepository } from '../../users/end-users.repository';
import { idempotencyRepository } from '../../idempotency/idempotency.repository';
import { broadcastsRepository } from '../../broadcasts/broadcasts.repository';
import { liveActivitiesRepository } from '../../live-activities/live-activities.repository';
import { outboxRepository } from '../../delivery/outbox/outbox.repository';
import { subscriptionExpiries } from '../../web-push/subscription-expiry';
import { webSubscriptionsRepository } from '../../web-push/web-subscriptions.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes finished deliveries (and messages nobody refers to any more) older than
 * `retention.deliveries_days` (broadcast steps too), and ended activities and broadcasts older than `retention.activities_days`.
 * Activities that ended inside the current billing period are kept whatever their age, so that
 * pruning never lowers the minutes an app has used. Idempotency keys go after 24 hours; webhook
 * deliveries and attempts, and the finished parts of scheduled sends, after `retention.deliveries_days`.
 * What an erasure kept for an end push still waiting goes once that push is no longer waiting.
 * Web devices whose subscription was not registered again for the app's `[apps.web_push]
 * expiry_days` go (web-push-expiry.job.ts made them stop being targets at that age).
 */
export function retentionJob(ctx: AppContext): Job {
  return {
    name: 'retention',
    intervalMs: ctx.config.scheduler.retention_interval_minutes * 60_000,
    async run(now) {
      const { retention } = ctx.config;
      const deliveriesBefore = now - retention.deliveries_days * DAY_MS;
      const activitiesBefore = Math.min(now - retention.activities_days * DAY_MS, billingPeriod(now).start);
      const removed = await ctx.db.write(async (tx) => ({
        ...(await outboxRepository(tx).prune(deliveriesBefore)),
        activities: await liveActivitiesRepository(tx).pruneEnded(activitiesBefore),
        // Ended broadcasts follow the activities' rule (their minutes count in the period).
        ...(await broadcastsRepository(tx).prune(deliveriesBefore, activitiesBefore)),
        idempotencyKeys: await idempotencyRepository(tx).prune(now - IDEMPOTENCY_TTL_MS),
        // Devices and activities of erased end users, kept anonymous until their end push went.
        erased: await endUsersRepository(tx).pruneErased(),
        // Events of the billing period stay: quota events are sent once a period.
        webhooks: await webhooksRepository(tx).prune(deliveriesBefore, Math.min(deliveriesBefore, billingPeriod(now).start)),
        // Parts of scheduled sends that went, were cancelled or expired; waiting ones stay whatever their age.
        scheduledSends: await scheduledSendsRepository(tx).prune(deliveriesBefore),
        webDevices: await removeExpiredWebDevices(tx, now),
      }));
      if (Object.values(removed).some((n) => n > 0)) ctx.logger.info('retention', removed);
    },
  };
}

/** Deletes the web devices not registered again within their app's expiry (issue 46 point 6); answers how many. */
async function removeExpiredWebDevices(tx: Tx, now: number): Promise<number> {
  let removed = 0;
  for (const { appId, cutoff } of await subscriptionExpiries(tx, now)) removed += await webSubscriptionsRepository(tx).removeStale(appId, cutoff);
  return removed;
}
