import type { AppContext } from '../../context';
import { newId } from '../../lib/ids';
import type { ReleasesService } from './releases/releases.service';
import { messageStatus } from './messages/message-status';
import { notificationSending, type SendInput, type SendResult } from './send/notification-sending';
import { scheduledSends } from './schedule/scheduled-sends';

/** Sending notifications: pick the release, render its template once per language, queue one delivery per device, now or at a time. */
export function notificationsService(ctx: AppContext, releases: ReleasesService) {
  const { clock } = ctx;
  const sending = notificationSending(ctx);
  const scheduled = scheduledSends(ctx, sending);

  return {
    /** What became of a sent notification (see messageStatus). */
    status: (appId: string, messageId: string) => messageStatus(ctx, appId, messageId, scheduled.status),

    /** A scheduled send's template, parts and their states (undefined: not one); the message list's lookup. */
    scheduleOf: scheduled.status,

    /** Cancels what of a scheduled send has not gone yet (see scheduledSends). */
    cancel: (appId: string, messageId: string) => scheduled.cancel(appId, messageId),

    /** The app's scheduled sends still waiting, by due time (the console's list). */
    waiting: (appId: string) => scheduled.waiting(appId),

    /**
     * Renders the template and queues it for every valid device of the targeted end users (all
     * connected ones when `targetUsers` is absent; only testers for a test send). The message and
     * all its deliveries are written in one transaction before this returns. With `sendAt` or
     * `sendAtLocal` the send is checked and stored now, and goes out at its time (scheduled-sends.ts).
     * The content (template, send's additions, message id) is checked whole before anything is
     * written: an invalid send queues nothing.
     * @example send('demo', { templateSlug: 'welcome', variables: { name: 'Ada' } }) // { messageCount: 3, messageId: 'msg_…' }
     */
    async send(appId: string, input: SendInput, options: { messageId?: string } = {}): Promise<SendResult> {
      if (input.sendAt !== undefined || input.sendAtLocal !== undefined) return scheduled.schedule(appId, input);
      const now = clock.now();
      // The demo's message has a fixed id (the API document's examples name it).
      const messageId = options.messageId ?? newId('msg', now);
      const prepared = await sending.prepare(appId, input, messageId, now);
      return ctx.db.write(async (tx) => {
        const messageCount = await sending.fanOut(tx, prepared, { messageId, now });
        return { messageCount, messageId: messageCount === 0 ? null : messageId };
      });
    },
  };
}

export type NotificationsService = ReturnType<typeof notificationsService>;
