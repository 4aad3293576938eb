import type { AppContext } from '../../../context';
import type { Job } from '../scheduler';
import { subscriptionExpiries } from '../../web-push/subscription-expiry';
import { webSubscriptionsRepository } from '../../web-push/web-subscriptions.repository';
import { tokensRepository } from '../../tokens/tokens.repository';
import { tokenInvalidated } from '../../webhooks/delivery-events';
import { webhookEventsRepository } from '../../webhooks/webhook-events.repository';

/** Subscriptions expired per app and run: a backlog goes over the next runs. */
const BATCH = 500;

/**
 * Issue 46 point 6: a web subscription not registered again for its app's `expiry_days` stops
 * being a target, as a 410 would make it (its token invalid, `device.token_invalidated`): Apple
 * keeps answering 201 after a user revokes permission (WebKit bug 249766), so no answer ever
 * retires it. A registration after the cutoff wins (the token's `reported_at`). Returns how many
 * expired; retention removes their devices.
 */
export async function expireWebSubscriptions(ctx: AppContext, now: number): Promise<number> {
  let expired = 0;
  // Read first: most runs find nothing, and need no write transaction.
  for (const expiry of await subscriptionExpiries(ctx.db.sql, now)) {
    const stale = await webSubscriptionsRepository(ctx.db.sql).stale(expiry.appId, expiry.cutoff, BATCH);
    if (stale.length === 0) continue;
    expired += await ctx.db.write(async (tx) => {
      const events = [];
      for (const s of stale) {
        // Not if the page registered it again since it was read (reported_at after the cutoff).
        if (!(await tokensRepository(tx).invalidate(s.id, expiry.reason, now, expiry.cutoff))) continue;
        events.push(tokenInvalidated({ appId: expiry.appId, tokenKind: 'webpush_subscription', deviceId: s.deviceId, activityId: null, endUserId: s.endUserId, reason: expiry.reason }));
      }
      await webhookEventsRepository(tx).emitAll(events, now);
      return events.length;
    });
  }
  if (expired > 0) ctx.logger.info('web subscriptions expired', { count: expired });
  return expired;
}

export function webPushExpiryJob(ctx: AppContext): Job {
  return { name: 'web-push-expiry', intervalMs: ctx.config.scheduler.tick_seconds * 1000, run: async (now) => void (await expireWebSubscriptions(ctx, now)) };
}
