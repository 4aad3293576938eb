import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import { notificationMessagesRepository } from '../messages/notification-messages.repository';
import { throttledSendsRepository } from './throttled-sends.repository';

/** The bounds of `throttlePerMinute` on a send. */
export const THROTTLE_PER_MINUTE = { min: 1, max: 1_000_000 } as const;

/**
 * A throttled send (`throttlePerMinute`): its deliveries are written as any send's, then, in the
 * same transaction, each is given its own due time (`next_attempt_at`), evenly spaced from the
 * fan-out's start. The worker claims only what is due, so the rate holds across instances and
 * restarts without anything kept in memory; what waits is `queued` in the message status, and a
 * cancel drops it as any queued delivery. A later part of a `sendAtLocal` (or a second fan-out of
 * the same message) starts where the earlier one's spread ends, if that is later than now: the
 * rate is the send's as a whole; after a stop of every instance, what is left goes on at the rate
 * from the restart (resumeThrottledSends).
 * @example const t = await throttleFrom(tx, earlier?.messageId); await queueSend(…); await t.spread(appId, publicId, now, 600);
 */
export async function throttleFrom(tx: Tx, mainMessageId: number | undefined) {
  const before = mainMessageId === undefined ? undefined : await throttledSendsRepository(tx).queuedBefore(mainMessageId);
  return {
    /** Spreads what the fan-out just queued for `publicId`; answers how many deliveries it spaced. */
    async spread(appId: string, publicId: string, now: number, perMinute: number): Promise<number> {
      const message = await notificationMessagesRepository(tx).find(appId, publicId);
      if (!message) return 0;
      const lastDue = before?.lastDue ?? null;
      const start = lastDue === null ? now : Math.max(now, lastDue + Math.floor(60_000 / perMinute));
      await throttledSendsRepository(tx).mark(message.messageId, perMinute);
      return throttledSendsRepository(tx).spread(message.messageId, before?.lastId ?? 0, start, perMinute);
    },
  };
}

/**
 * Start-up after a stop (every instance down): the deliveries of a throttled send that came due
 * while nothing ran would otherwise all go at once. What is left of each such send is spread again
 * from now at its rate, in its order. Runs through `instance.recover('throttled sends')`, which on
 * PostgreSQL runs it only when no other instance is live (a live one kept to the schedule).
 * Answers how many deliveries it went through.
 */
export async function resumeThrottledSends(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  let resumed = 0;
  for (const send of await throttledSendsRepository(ctx.db.sql).behind(now)) {
    resumed += await ctx.db.write((tx) => throttledSendsRepository(tx).resume(send.messageId, now, send.perMinute));
  }
  return resumed;
}
