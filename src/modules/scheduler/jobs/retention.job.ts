import type { AppContext } from '../../../context';
import { IDEMPOTENCY_TTL_MS } from '../../idempotency/idempotency';
import { idempotencyRepository } from '../../idempotency/idempotency.repository';
import { webhooksRepository } from '../../webhooks/webhooks.repository';
import type { Job } from '../scheduler';
import { billingPeriod } from '../billing-period';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes finished deliveries (and messages nobody refers to any more) older than
 * `retention.deliveries_days`, and ended activities older than `retention.activities_days`.
 * Activities that ended inside the current billing period are kept whatever their age, so that
 * pruning never lowers the minutes an app has used. Idempotency keys go after 24 hours; webhook
 * deliveries and attempts after `retention.deliveries_days`.
 */
export function retentionJob(ctx: AppContext): Job {
  const client = ctx.db.sqlite.$client;
  const deleteDeliveries = client.query(`DELETE FROM deliveries WHERE status IN ('delivered', 'failed', 'dropped', 'superseded') AND updated_at < ?`);
  const deleteMessages = client.query(
    `DELETE FROM messages WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = messages.id)`,
  );
  const deleteActivities = client.query(
    `DELETE FROM activities WHERE state = 'Ended' AND ended_at < ?
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.activity_id = activities.id AND d.status IN ('pending', 'held', 'sending'))`,
  );
  const idempotencyKeys = idempotencyRepository(ctx.db.sqlite);
  const webhooks = webhooksRepository(ctx.db.sqlite);
  return {
    name: 'retention',
    intervalMs: ctx.config.scheduler.retention_interval_minutes * 60_000,
    run(now) {
      const { retention } = ctx.config;
      const deliveriesBefore = now - retention.deliveries_days * DAY_MS;
      const activitiesBefore = Math.min(now - retention.activities_days * DAY_MS, billingPeriod(now).start);
      const removed = client.transaction(() => ({
        deliveries: deleteDeliveries.run(deliveriesBefore).changes,
        messages: deleteMessages.run(deliveriesBefore).changes,
        activities: deleteActivities.run(activitiesBefore).changes,
        idempotencyKeys: idempotencyKeys.prune(now - IDEMPOTENCY_TTL_MS),
        // Events of the billing period stay: quota events are sent once a period.
        webhooks: webhooks.prune(deliveriesBefore, Math.min(deliveriesBefore, billingPeriod(now).start)),
      })).immediate();
      if (Object.values(removed).some((n) => n > 0)) ctx.logger.info('retention', removed);
    },
  };
}
