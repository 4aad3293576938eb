import { describe, expect, test } from 'bun:test';
import { messageDays, type ListedMessage } from './message-days';

const message = (createdAt: string, sent: number, failed: number, opened: number): ListedMessage => ({
  messageId: `msg_${createdAt}`,
  templateSlug: 'welcome',
  releaseVersion: 1,
  createdAt,
  deliveries: { total: sent + failed, queued: 0, held: 0, sending: 0, sent, failed, dropped: 0, superseded: 0 },
  opened,
});

describe('messages chart days', () => {
  test('sums sent, failed and opened per UTC day the message was sent, every day between the oldest and the newest', () => {
    const days = messageDays([
      message('2026-11-28T23:59:00.000Z', 5, 1, 2),
      message('2026-11-28T00:00:00.000Z', 3, 0, 1),
      message('2026-11-25T12:00:00.000Z', 10, 2, 4),
    ]);
    expect(days).toEqual([
      { date: '2026-11-25', sent: 10, failed: 2, opened: 4 },
      { date: '2026-11-26', sent: 0, failed: 0, opened: 0 },
      { date: '2026-11-27', sent: 0, failed: 0, opened: 0 },
      { date: '2026-11-28', sent: 8, failed: 1, opened: 3 },
    ]);
  });

  test('no messages, no days; a long span keeps the last days only', () => {
    expect(messageDays([])).toEqual([]);
    const days = messageDays([message('2026-01-01T10:00:00.000Z', 1, 0, 0), message('2026-11-28T10:00:00.000Z', 2, 0, 0)], 7);
    expect(days.map((d) => d.date)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28']);
    expect(days.at(-1)!.sent).toBe(2);
  });
});
