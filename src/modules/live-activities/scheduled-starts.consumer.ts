import type { AppContext } from '../../context';
import { clockPump } from '../../queue/clock-pump';
import { scheduledStarts } from './scheduled-starts';

/** How often the starts due are looked for (a scheduled activity starts within a second of its time). */
export const SCHEDULED_STARTS_POLL_MS = 1000;

/**
 * Starts scheduled Live Activities when due, on the queue runtime, as the scheduled sends go: each
 * second a round reads the starts due through the due index; each is claimed and started in one
 * transaction (`Dialect.skipLocked` on PostgreSQL: instances side by side skip each other's), so
 * every instance runs it and a crash (kill -9) leaves nothing to recover: the start is still waiting.
 * @example const starts = scheduledStartsConsumer(ctx); starts.start(); … await starts.stop();
 */
export function scheduledStartsConsumer(ctx: AppContext) {
  const starts = scheduledStarts(ctx);
  return clockPump(ctx.coordination.wakeUps, ctx.logger, ctx.clock, { name: 'scheduled starts', pollMs: SCHEDULED_STARTS_POLL_MS, due: (now, stopping) => starts.startDue(now, stopping) });
}
