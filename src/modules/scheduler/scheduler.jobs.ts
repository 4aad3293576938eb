import type { AppContext } from '../../context';
import { iosExpiryJob } from './jobs/ios-expiry.job';
import { quotaJob } from './jobs/quota.job';
import { retentionJob } from './jobs/retention.job';
import { webPushExpiryJob } from './jobs/web-push-expiry.job';
import { Scheduler } from './scheduler';

/**
 * The scheduler of a running server and its table of jobs. iOS expiry comes before quota so that
 * expired activities stop counting at 8 hours (quota also runs expiry itself, for the same reason);
 * web subscriptions not registered again in time stop being targets (web-push-expiry).
 * Queues are not jobs: deliveries, broadcast steps, webhook deliveries and scheduled sends run on
 * the queue runtime (src/queue), on every instance, started by the server.
 */
export function createScheduler(ctx: AppContext): Scheduler {
  const { metrics } = ctx;
  const jobs = [iosExpiryJob(ctx), quotaJob(ctx), webPushExpiryJob(ctx), retentionJob(ctx)];
  const onRun = (job: string, seconds: number, ok: boolean) => {
    metrics.jobRuns.inc({ job, outcome: ok ? 'ok' : 'error' });
    metrics.jobSeconds.observe({ job }, seconds);
  };
  return new Scheduler(jobs, ctx.clock, ctx.logger, undefined, onRun, ctx.coordination.leadership);
}
