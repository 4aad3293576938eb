import type { AppContext } from '../../context';
import { iosExpiryJob } from './jobs/ios-expiry.job';
import { quotaJob } from './jobs/quota.job';
import { retentionJob } from './jobs/retention.job';
import { webhookDispatcher } from '../webhooks/webhooks.dispatcher';
import { scheduledSendsJob } from './jobs/scheduled-sends.job';
import { Scheduler } from './scheduler';

/**
 * The scheduler of a running server and its table of jobs. iOS expiry comes before quota so that
 * expired activities stop counting at 8 hours (quota also runs expiry itself, for the same reason).
 * Delivery retries are the delivery engine's own loop (modules/delivery); the webhook outbox is
 * sent by the `webhooks` job (every second, retries on the Standard Webhooks schedule); scheduled
 * notification sends go out from the `scheduled-sends` job (every second, only the due ones read).
 */
export function createScheduler(ctx: AppContext): Scheduler {
  const { metrics } = ctx;
  const jobs = [iosExpiryJob(ctx), quotaJob(ctx), retentionJob(ctx), webhookDispatcher(ctx), scheduledSendsJob(ctx)];
  const onRun = (job: string, seconds: number, ok: boolean) => {
    metrics.jobRuns.inc({ job, outcome: ok ? 'ok' : 'error' });
    metrics.jobSeconds.observe({ job }, seconds);
  };
  return new Scheduler(jobs, ctx.clock, ctx.logger, undefined, onRun, ctx.coordination.leadership);
}
