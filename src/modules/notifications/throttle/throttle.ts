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
 * rate is the send's as a whole.
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
      return throttledSendsRepository(tx).spread(message.messageId, before?.lastId ?? 0, start, perMinute);
    },
  };
}
