import type { AppContext } from '../../../context';
import { isoTime } from '../../../lib/clock';
import type { NotificationContent } from '../../delivery/message-content';
import { noCounts, STATE_NAMES, type DeliveryCounts } from './message-status';
import { notificationOpensRepository } from '../opens/notification-opens.repository';

/** A message of the list: what the status endpoint tells of it, without the per-platform split. */
export interface ListedMessage {
  messageId: string;
  templateSlug: string;
  releaseVersion: number;
  createdAt: string;
  deliveries: DeliveryCounts;
  opened: number;
}

export interface MessageList {
  messages: ListedMessage[];
  total: number;
}

/**
 * The app's messages, newest first, with their deliveries counted by state and their opens. Counted
 * when asked, not kept as counters: the page's messages are found through notification_messages_app,
 * their deliveries through deliveries_message, so a page reads the deliveries of its own messages
 * only (a page holding a send to a million devices reads that million; docs/performance.md).
 */
export async function messageList(ctx: AppContext, appId: string, limit: number, offset: number): Promise<MessageList> {
  const repo = notificationOpensRepository(ctx.db.sql);
  const [rows, total] = await Promise.all([repo.page(appId, limit, offset), repo.total(appId)]);
  const ids = rows.map((r) => r.messageId);
  const [states, opens] = ids.length ? await Promise.all([repo.deliveryCounts(ids), repo.counts(ids)]) : [[], []];
  const byId = new Map<number, ListedMessage>();
  const messages = rows.map((row) => {
    const content = JSON.parse(row.content) as NotificationContent;
    const listed: ListedMessage = {
      messageId: row.publicId,
      templateSlug: content.templateSlug,
      releaseVersion: content.releaseVersion,
      createdAt: isoTime(row.createdAt),
      deliveries: noCounts(),
      opened: 0,
    };
    byId.set(row.messageId, listed);
    return listed;
  });
  for (const s of states) {
    const listed = byId.get(s.messageId);
    const state = STATE_NAMES[s.status];
    if (!listed || !state) continue;
    listed.deliveries[state] += s.count;
    listed.deliveries.total += s.count;
  }
  for (const o of opens) {
    const listed = byId.get(o.messageId);
    if (listed) listed.opened = o.count;
  }
  return { messages, total };
}
