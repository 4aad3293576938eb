import type { AppContext } from '../../../context';
import { Pump } from '../../../queue/pump';
import { quietHoldsRepository } from './quiet-holds.repository';

/** How often quiet holds whose window ended are looked for: a held notification goes within a second of the end. */
export const QUIET_HOLDS_POLL_MS = 1000;
/** Holds released (or dropped) per transaction. */
const BATCH = 1000;
/** The reason a notification whose ttl ran out while held for quiet hours is dropped with. */
export const EXPIRED_IN_QUIET_HOURS = 'expired';

/**
 * Releases deliveries held for quiet hours (hold kind `quiet`: notifications/limits/send-limits.ts
 * holds them until the window ends in the device's zone, or until the notification expires): each
 * second one indexed read of the holds due (none: nothing else), then, a batch per transaction,
 * the due ones become `pending` and the delivery worker is woken, or, past their message's ttl,
 * are dropped (`expired`). Durable and safe on several instances: the rows are the state (PostgreSQL:
 * a batch is locked and skipped by the others), nothing is kept in memory, so a kill -9 loses nothing.
 * @example const quiet = quietHoldsConsumer(ctx); quiet.start(); … await quiet.stop();
 */
export function quietHoldsConsumer(ctx: AppContext) {
  /** Releases or drops what is due at `now`; answers how many holds ended. */
  const releaseDue = async (now: number): Promise<number> => {
    let ended = 0;
    for (;;) {
      const rows = await ctx.db.write(async (tx) => {
        const repo = quietHoldsRepository(tx);
        const due = await repo.due(now, BATCH);
        if (due.length === 0) return 0;
        const messages = await repo.messages([...new Set(due.map((r) => r.messageId))]);
        const expiresAt = new Map(messages.map((m) => [m.id, m.createdAt + ((JSON.parse(m.content) as { ttlSeconds?: number }).ttlSeconds ?? Infinity) * 1000]));
        const expired = due.filter((r) => now >= (expiresAt.get(r.messageId) ?? Infinity)).map((r) => r.id);
        const released = due.filter((r) => now < (expiresAt.get(r.messageId) ?? Infinity)).map((r) => r.id);
        if (released.length > 0 && (await repo.release(released, now)) > 0) ctx.outbox.notifyQueued();
        if (expired.length > 0) await repo.expire(expired, now, EXPIRED_IN_QUIET_HOURS);
        return due.length;
      });
      ended += rows;
      if (rows < BATCH) return ended;
    }
  };
  const pump = new Pump(ctx.coordination.wakeUps, ctx.logger, {
    name: 'quiet hours',
    pollMs: QUIET_HOLDS_POLL_MS,
    // Due by the clock, not by a write: polled.
    wakeOn: [],
    round: async () => void (await releaseDue(ctx.clock.now())),
  });
  return {
    /** Releases what is due at the clock's time now (tests move a fake clock, then drain). */
    drain: () => releaseDue(ctx.clock.now()),
    start: () => pump.start(),
    stop: () => pump.stop(),
  };
}
