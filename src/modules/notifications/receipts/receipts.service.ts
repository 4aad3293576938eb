import type { AppContext } from '../../../context';
import { HttpError } from '../../../lib/errors';
import { notificationMessagesRepository } from '../messages/notification-messages.repository';
import { notificationOpensRepository } from '../opens/notification-opens.repository';
import { NOT_SENT, type OpenReport } from '../opens/opens.service';
import { notificationReceiptsRepository } from './notification-receipts.repository';

/** What a receipt answers: `counted` false when the device had reported this message received already. */
export interface ReceiptResult {
  success: true;
  counted: boolean;
}

/**
 * Receipts reported by devices: the notification reached the phone (not only APNs or FCM). Checked
 * as an open is (opens.service.ts): a delivery of the message went to this device, still
 * registered, of `endUserId`; counted once per device and message.
 */
export function receiptsService(ctx: AppContext) {
  return {
    async report(appId: string, publicId: string, report: OpenReport): Promise<ReceiptResult> {
      const message = await notificationMessagesRepository(ctx.db.sql).find(appId, publicId);
      if (!message) throw new HttpError(404, 'message not found');
      const device = await notificationOpensRepository(ctx.db.sql).sentTo(appId, message.messageId, report.deviceId);
      if (!device || device.endUserId !== report.endUserId) throw new HttpError(404, NOT_SENT);
      const now = ctx.clock.now();
      const counted = await ctx.db.write((tx) => notificationReceiptsRepository(tx).record(message.messageId, report.deviceId, now));
      return { success: true, counted };
    },
  };
}

export type ReceiptsService = ReturnType<typeof receiptsService>;
