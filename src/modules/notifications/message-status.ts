import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import type { NotificationContent } from '../delivery/message-content';

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
  platforms: { ios: DeliveryCounts; android: DeliveryCounts };
  /** Devices that reported opening it (once each: opens.service.ts). */
  opened: number;
}

/** The delivery states as the status endpoint names them (the outbox's `pending` and `delivered` are what a caller calls queued and sent). */
export const STATE_NAMES: Record<string, Exclude<keyof DeliveryCounts, 'total'>> = {
  pending: 'queued',
  held: 'held',
  sending: 'sending',
  delivered: 'sent',
  failed: 'failed',
  dropped: 'dropped',
  superseded: 'superseded',
};

export const noCounts = (): DeliveryCounts => ({ total: 0, queued: 0, held: 0, sending: 0, sent: 0, failed: 0, dropped: 0, superseded: 0 });

/**
 * What became of a sent notification: its template and release, and its deliveries counted by
 * state, in all and per platform. Another app's message id, or one retention removed, is 404.
 */
export async function messageStatus(ctx: AppContext, appId: string, publicId: string): Promise<MessageStatus> {
  const repo = ctx.db.repos.notificationMessages;
  const message = await repo.find(appId, publicId);
  if (!message) throw new HttpError(404, 'message not found');
  const content = JSON.parse(message.content) as NotificationContent;
  const status: MessageStatus = {
    messageId: publicId,
    templateSlug: content.templateSlug,
    releaseVersion: content.releaseVersion,
    createdAt: isoTime(message.createdAt),
    deliveries: noCounts(),
    platforms: { ios: noCounts(), android: noCounts() },
    opened: await ctx.db.repos.notificationOpens.count(message.messageId),
  };
  for (const row of await repo.counts(message.messageId)) {
    const state = STATE_NAMES[row.status];
    if (!state) continue;
    const platform = row.platform === 'ios' || row.platform === 'android' ? status.platforms[row.platform] : undefined;
    for (const counts of platform ? [status.deliveries, platform] : [status.deliveries]) {
      counts[state] += row.count;
      counts.total += row.count;
    }
  }
  return status;
}
