import type { AppContext } from '../../../context';
import { Pump } from '../../../queue/pump';
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
  let stopping = false;
  const pump = new Pump(ctx.coordination.wakeUps, ctx.logger, {
    name: 'scheduled sends',
    pollMs: SCHEDULED_SENDS_POLL_MS,
    // Due by the clock, not by a write: polled.
    wakeOn: [],
    round: async () => void (await sends.sendDue(ctx.clock.now(), () => stopping)),
  });
  return {
    /** One round now: sends every part due at the clock's time (tests move a fake clock, then drain). */
    drain: async (): Promise<void> => void (await pump.round()),
    start: () => pump.start(),
    /** The part under way finishes; no other is taken. */
    async stop(): Promise<void> {
      stopping = true;
      await pump.stop();
    },
  };
}

export type ScheduledSendsConsumer = ReturnType<typeof scheduledSendsConsumer>;
