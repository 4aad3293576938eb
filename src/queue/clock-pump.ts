import type { WakeUps } from '../coordination/coordination';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import { Pump } from './pump';

/**
 * A consumer of work due by the clock, not by a write (scheduled sends, scheduled starts): polled
 * every `pollMs`, no wake-up. A round is `due(now, stopping)` at the clock's time; `stopping()`
 * turns true once `stop` is called, so a round takes nothing more and the one under way finishes.
 * @example const sends = clockPump(ctx.coordination.wakeUps, ctx.logger, ctx.clock, { name: 'scheduled sends', pollMs: 1000, due: (now, stopping) => sends.sendDue(now, stopping) });
 */
export function clockPump(wakeUps: WakeUps, logger: Logger, clock: Clock, options: { name: string; pollMs: number; due: (now: number, stopping: () => boolean) => Promise<unknown> }) {
  let stopping = false;
  const pump = new Pump(wakeUps, logger, {
    name: options.name,
    pollMs: options.pollMs,
    wakeOn: [],
    round: async () => void (await options.due(clock.now(), () => stopping)),
  });
  return {
    /** One round now (tests move a fake clock, then drain). */
    drain: async (): Promise<void> => void (await pump.round()),
    start: () => pump.start(),
    /** The round under way finishes; nothing more is taken. */
    async stop(): Promise<void> {
      stopping = true;
      await pump.stop();
    },
  };
}
