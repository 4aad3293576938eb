import type { AppContext } from '../../../context';
import type { Job } from '../scheduler';
import { notificationSending } from '../../notifications/notification-sending';
import { scheduledSends } from '../../notifications/scheduled-sends';

/**
 * Sends scheduled sends when due: each second it reads the parts due now through the due index
 * (none: one indexed lookup), so a hundred thousand waiting sends cost nothing per tick. Only the
 * leader runs it; on PostgreSQL the claims also skip rows another instance holds (SKIP LOCKED).
 */
export function scheduledSendsJob(ctx: AppContext): Job {
  const sends = scheduledSends(ctx, notificationSending(ctx));
  let stopped = false;
  return {
    name: 'scheduled-sends',
    intervalMs: 1000,
    run: async (now) => {
      stopped = false;
      await sends.sendDue(now, () => stopped);
    },
    stop: () => void (stopped = true),
    standDown: () => void (stopped = true),
  };
}
