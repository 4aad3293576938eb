/** A message as `GET …/notifications` lists it (what the console's Messages page shows). */
export interface ListedMessage {
  messageId: string;
  templateSlug: string;
  releaseVersion: number;
  state?: 'scheduled' | 'sending' | 'sent' | 'cancelled';
  createdAt: string;
  scheduledFor?: string | null;
  deliveries: Record<'total' | 'queued' | 'held' | 'sending' | 'sent' | 'failed' | 'dropped' | 'superseded', number>;
  opened: number;
}

export interface MessageDay {
  /** YYYY-MM-DD, UTC. */
  date: string;
  sent: number;
  failed: number;
  opened: number;
}

const DAY_MS = 86_400_000;

/**
 * Sent, failed and opened per UTC day of the messages given, by the day each message was sent (its
 * opens and outcomes count on that day, whenever they came): every day from the oldest message's to
 * the newest's, empty ones too, at most the last `maxDays`.
 */
export function messageDays(messages: readonly ListedMessage[], maxDays = 30): MessageDay[] {
  if (messages.length === 0) return [];
  const byDate = new Map<string, MessageDay>();
  let first = Infinity;
  let last = -Infinity;
  for (const m of messages) {
    const day = Math.floor(Date.parse(m.createdAt) / DAY_MS);
    first = Math.min(first, day);
    last = Math.max(last, day);
    const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    const entry = byDate.get(date) ?? { date, sent: 0, failed: 0, opened: 0 };
    entry.sent += m.deliveries.sent;
    entry.failed += m.deliveries.failed;
    entry.opened += m.opened;
    byDate.set(date, entry);
  }
  const days: MessageDay[] = [];
  for (let day = Math.max(first, last - maxDays + 1); day <= last; day++) {
    const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    days.push(byDate.get(date) ?? { date, sent: 0, failed: 0, opened: 0 });
  }
  return days;
}
