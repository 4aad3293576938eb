import type { AppContext } from '../../../context';
import { isoTime } from '../../../lib/clock';
import { HttpError } from '../../../lib/errors';
import type { NotificationContent } from '../../delivery/message-content';
import { notificationOpensRepository } from '../opens/notification-opens.repository';
import { notificationMessagesRepository } from './notification-messages.repository';
import { notificationReceiptsRepository } from '../receipts/notification-receipts.repository';
import { DELIVERY_STATE_NAMES } from '../../delivery/delivery-states';

/** How many deliveries of a message are in each state. `queued`: waiting to go; `sent`: the provider accepted it. */
export interface DeliveryCounts {
  total: number;
  queued: number;
  held: number;
  sending: number;
  sent: number;
  failed: number;
  dropped: number;
  superseded: number;
}

export interface MessageStatus {
  messageId: string;
  templateSlug: string;
  releaseVersion: number;
  createdAt: string;
  /** Every delivery, of devices deleted since too. */
  deliveries: DeliveryCounts;
  platforms: { ios: DeliveryCounts; android: DeliveryCounts; web: DeliveryCounts };
  /** Devices that reported opening it (once each: opens.service.ts). */
  opened: number;
  /** Devices that reported receiving it (receipts, once each). */
  received: number;
  /** A scheduled send's parts (ScheduledSends.status); absent for a send that went at once. */
  schedule?: ScheduleStatus;
}

/** What a scheduled send waits for: deliveries scheduled (devices its waiting parts reach now) and cancelled, and each part's due time. */
export interface ScheduleStatus {
  scheduledFor: string;
  scheduled: number;
  cancelled: number;
  parts: { dueAt: string; status: 'scheduled' | 'sent' | 'cancelled' | 'expired' | 'failed'; deliveries: number; zones: string[] | null }[];
}

/** A scheduled send's template and parts, when `publicId` is one (scheduled-sends.ts). */
export type ScheduleLookup = (appId: string, publicId: string) => Promise<{ templateSlug: string; releaseVersion: number; createdAt: number; schedule: ScheduleStatus; partStates: string[] } | undefined>;

/** The delivery states as the API names them (delivery-states.ts: the outbox's `pending` and `delivered` are queued and sent). */
export const STATE_NAMES: Record<string, Exclude<keyof DeliveryCounts, 'total'>> = DELIVERY_STATE_NAMES;

export const noCounts = (): DeliveryCounts => ({ total: 0, queued: 0, held: 0, sending: 0, sent: 0, failed: 0, dropped: 0, superseded: 0 });

/**
 * What became of a sent notification: its template and release, and its deliveries counted by
 * state, in all and per platform. Another app's message id, or one retention removed, is 404.
 */
export async function messageStatus(ctx: AppContext, appId: string, publicId: string, scheduleOf?: ScheduleLookup): Promise<MessageStatus> {
  const repo = notificationMessagesRepository(ctx.db.sql);
  const message = await repo.find(appId, publicId);
  // A scheduled send has no message row until its first part goes.
  const scheduled = await scheduleOf?.(appId, publicId);
  if (!message && !scheduled) throw new HttpError(404, 'message not found');
  const content = message ? (JSON.parse(message.content) as NotificationContent) : undefined;
  const status: MessageStatus = {
    messageId: publicId,
    templateSlug: content?.templateSlug ?? scheduled!.templateSlug,
    releaseVersion: content?.releaseVersion ?? scheduled!.releaseVersion,
    createdAt: isoTime(scheduled?.createdAt ?? message!.createdAt),
    deliveries: noCounts(),
    platforms: { ios: noCounts(), android: noCounts(), web: noCounts() },
    opened: message ? await notificationOpensRepository(ctx.db.sql).count(message.messageId) : 0,
    received: message ? await notificationReceiptsRepository(ctx.db.sql).count(message.messageId) : 0,
  };
  if (scheduled) status.schedule = scheduled.schedule;
  if (!message) return status;
  for (const row of await repo.counts(message.messageId)) {
    const state = STATE_NAMES[row.status];
    if (!state) continue;
    const platform = row.platform === 'ios' || row.platform === 'android' || row.platform === 'web' ? status.platforms[row.platform] : undefined;
    for (const counts of platform ? [status.deliveries, platform] : [status.deliveries]) {
      counts[state] += row.count;
      counts.total += row.count;
    }
  }
  return status;
}
