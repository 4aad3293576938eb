import type { AppContext } from '../../../context';
import { isoTime } from '../../../lib/clock';
import type { NotificationContent } from '../../delivery/message-content';
import { noCounts, STATE_NAMES, type DeliveryCounts, type ScheduleLookup } from './message-status';
import { notificationOpensRepository } from '../opens/notification-opens.repository';
import { notificationMessagesRepository } from './notification-messages.repository';
import { notificationReceiptsRepository } from '../receipts/notification-receipts.repository';
import { scheduledSendsRepository } from '../schedule/scheduled-sends.repository';

/** Where a message stands: waiting for its time, going out, gone, or stopped by a cancel. */
export type MessageState = 'scheduled' | 'sending' | 'sent' | 'cancelled';

/** A message of the list: what the status endpoint tells of it, without the per-platform split. */
export interface ListedMessage {
  messageId: string;
  templateSlug: string;
  releaseVersion: number;
  state: MessageState;
  /** When the send was made (for a scheduled send: when it was scheduled). */
  createdAt: string;
  /** When a scheduled send goes (its first part that reaches a device, as its status says); null for a send made to go at once. */
  scheduledFor: string | null;
  deliveries: DeliveryCounts;
  opened: number;
  /** Devices that reported receiving it (receipts, once each). */
  received: number;
}

export interface MessageList {
  messages: ListedMessage[];
  total: number;
}

/** An entry of the merged list before its counts are read. */
interface Entry {
  publicId: string;
  createdAt: number;
  /** Its messages row (absent: a scheduled send none of whose parts went). */
  messageId?: number;
  content?: string;
}

/**
 * The app's messages, newest first by `createdAt`, with their deliveries counted by state and
 * their opens. Two sources merged: messages sent at once (their page read through
 * notification_messages_app, as before) and scheduled sends (few: at most 30 days ahead, pruned by
 * retention; read whole). Fetching the sent-at-once rows from `offset - scheduled` to
 * `offset + limit` is enough to rank both exactly. Counts are read for the page's messages only.
 */
export async function messageList(ctx: AppContext, appId: string, limit: number, offset: number, scheduleOf: ScheduleLookup): Promise<MessageList> {
  const repo = notificationOpensRepository(ctx.db.sql);
  const scheduledRows = (await scheduledSendsRepository(ctx.db.sql).messages(appId)).sort((a, b) => b.createdAt - a.createdAt || (a.publicId < b.publicId ? 1 : -1));
  const from = Math.max(0, offset - scheduledRows.length);
  const [atOnce, allAtOnce] = await Promise.all([repo.page(appId, offset + limit - from, from), repo.total(appId)]);
  const went = scheduledRows.filter((r) => r.went).length;
  // A scheduled entry ranks after the sent-at-once rows newer than it; at an equal time it comes first.
  const ranked: { rank: number; entry: Entry }[] = atOnce.map((r, i) => ({
    rank: from + i + scheduledRows.filter((s) => s.createdAt >= r.createdAt).length,
    entry: { publicId: r.publicId, createdAt: r.createdAt, messageId: r.messageId, content: r.content },
  }));
  // Past the window's first row, every sent-at-once row before the window is newer; one newer than that row ranks before `offset` (j < scheduled).
  scheduledRows.forEach((s, j) => ranked.push({ rank: j + from + atOnce.filter((r) => r.createdAt > s.createdAt).length, entry: s }));
  const page = ranked.filter((r) => r.rank >= offset && r.rank < offset + limit).sort((a, b) => a.rank - b.rank);
  const messages = await Promise.all(page.map(({ entry }) => listed(ctx, appId, entry, scheduleOf)));
  const counted = messages.filter((m) => m.row !== undefined);
  const ids = counted.map((m) => m.row!);
  const [states, opens, receipts] = ids.length ? await Promise.all([repo.deliveryCounts(ids), repo.counts(ids), notificationReceiptsRepository(ctx.db.sql).counts(ids)]) : [[], [], []];
  const byId = new Map(counted.map((m) => [m.row!, m]));
  for (const s of states) {
    const m = byId.get(s.messageId);
    const state = s.status === 'cancelled' ? 'dropped' : STATE_NAMES[s.status];
    if (!m || !state) continue;
    if (s.status === 'cancelled') m.cancelledDeliveries = true;
    m.listed.deliveries[state] += s.count;
    m.listed.deliveries.total += s.count;
  }
  for (const o of opens) {
    const m = byId.get(o.messageId);
    if (m) m.listed.opened = o.count;
  }
  for (const r of receipts) {
    const m = byId.get(r.messageId);
    if (m) m.listed.received = r.count;
  }
  for (const m of messages) m.listed.state = stateOf(m.listed.deliveries, m.partStates, m.cancelledDeliveries);
  return { messages: messages.map((m) => m.listed), total: allAtOnce - went + scheduledRows.length };
}

async function listed(ctx: AppContext, appId: string, entry: Entry, scheduleOf: ScheduleLookup) {
  const schedule = entry.messageId === undefined || entry.content === undefined ? await scheduleOf(appId, entry.publicId) : undefined;
  const message = entry.messageId === undefined ? await notificationMessagesRepository(ctx.db.sql).find(appId, entry.publicId) : { messageId: entry.messageId, content: entry.content! };
  const content = message ? (JSON.parse(message.content) as NotificationContent) : undefined;
  const listed: ListedMessage = {
    messageId: entry.publicId,
    templateSlug: content?.templateSlug ?? schedule?.templateSlug ?? '',
    releaseVersion: content?.releaseVersion ?? schedule?.releaseVersion ?? 0,
    state: 'sent',
    createdAt: isoTime(entry.createdAt),
    scheduledFor: schedule?.schedule.scheduledFor ?? null,
    deliveries: noCounts(),
    opened: 0,
    received: 0,
  };
  return { listed, row: message?.messageId, partStates: schedule?.partStates ?? [], cancelledDeliveries: false };
}

/**
 * A message's state: `scheduled` while its parts wait and none went; `sending` while some wait
 * after others went, or deliveries are still queued, held or sending; `cancelled` once a cancel
 * stopped a part or dropped deliveries and nothing waits; else `sent`.
 */
export function stateOf(deliveries: DeliveryCounts, partStates: string[], cancelledDeliveries: boolean): MessageState {
  if (partStates.includes('waiting')) return partStates.includes('sent') ? 'sending' : 'scheduled';
  const waiting = deliveries.queued + deliveries.held + deliveries.sending;
  if (waiting === 0 && (partStates.includes('cancelled') || cancelledDeliveries)) return 'cancelled';
  return waiting > 0 ? 'sending' : 'sent';
}
