import type { AppContext } from '../../../context';
import { clockPump } from '../../../queue/clock-pump';
import { notificationSending } from '../send/notification-sending';
import { scheduledSends } from './scheduled-sends';

/** How often the parts due are looked for (a send goes within a second of its time). */
export const SCHEDULED_SENDS_POLL_MS = 1000;

/**
 * Sends scheduled sends when due, on the queue runtime: each second a round reads the parts due
 * now through the due index (none: one indexed lookup), so a hundred thousand waiting sends cost
 * nothing per round. Each part is claimed and fanned out in one transaction (`Dialect.skipLocked`
 * on PostgreSQL: instances side by side skip each other's part), so every instance runs it and a
 * crash leaves nothing to recover: the part is still waiting.
 * @example const sends = scheduledSendsConsumer(ctx); sends.start(); … await sends.stop();
 */
export function scheduledSendsConsumer(ctx: AppContext) {
  const sends = scheduledSends(ctx, notificationSending(ctx));
  return clockPump(ctx.coordination.wakeUps, ctx.logger, ctx.clock, { name: 'scheduled sends', pollMs: SCHEDULED_SENDS_POLL_MS, due: (now, stopping) => sends.sendDue(now, stopping) });
}

export type ScheduledSendsConsumer = ReturnType<typeof scheduledSendsConsumer>;
