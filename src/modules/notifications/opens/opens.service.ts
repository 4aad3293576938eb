import type { AppContext } from '../../../context';
import { isoTime } from '../../../lib/clock';
import { HttpError } from '../../../lib/errors';
import { messageList, type MessageList } from '../messages/message-list';
import { webhookEventsRepository } from '../../webhooks/webhook-events.repository';
import { notificationOpensRepository } from './notification-opens.repository';
import { notificationMessagesRepository } from '../messages/notification-messages.repository';
import type { ScheduleLookup } from '../messages/message-status';

export interface OpenReport {
  endUserId: string;
  deviceId: string;
}

/** What an open report answers: `counted` false when the device had reported this message already. */
export interface OpenResult {
  success: true;
  counted: boolean;
}

export const NOT_SENT = 'message was not sent to this device';

/**
 * Opens reported by devices, and the app's messages listed with their counts.
 *
 * "Was sent that message": a delivery of it (in any state) went to this device, and the device,
 * still registered, belongs to `endUserId`. A deleted device (or an erased end user) can no longer
 * report: nothing left says whose it was, and an open must not bring an end user back. Its opens
 * reported before stay counted, as its deliveries do.
 */
export function opensService(ctx: AppContext, scheduleOf: ScheduleLookup) {
  return {
    /** Counts the open once per device and emits `notification.opened` with that first count. */
    async report(appId: string, publicId: string, report: OpenReport): Promise<OpenResult> {
      const message = await notificationMessagesRepository(ctx.db.sql).find(appId, publicId);
      if (!message) throw new HttpError(404, 'message not found');
      const device = await notificationOpensRepository(ctx.db.sql).sentTo(appId, message.messageId, report.deviceId);
      if (!device || device.endUserId !== report.endUserId) throw new HttpError(404, NOT_SENT);
      const now = ctx.clock.now();
      const counted = await ctx.db.write(async (tx) => {
        if (!(await notificationOpensRepository(tx).record(message.messageId, report.deviceId, now))) return false;
        // In the same transaction as the open: the event exists exactly when the open was counted.
        const data = { messageId: publicId, endUserId: report.endUserId, deviceId: report.deviceId, platform: device.platform, openedAt: isoTime(now) };
        await webhookEventsRepository(tx).emit(appId, 'notification.opened', data, now);
        return true;
      });
      return { success: true, counted };
    },

    /** The app's messages newest first, with their counts (see messageList). */
    list: (appId: string, limit: number, offset: number): Promise<MessageList> => messageList(ctx, appId, limit, offset, scheduleOf),
  };
}

export type OpensService = ReturnType<typeof opensService>;
