import { describe, expect, test } from 'bun:test';
import type { Usage } from './types';
import { chartScale, niceMax, periodDays } from './usage-period';

const usage = (daily: Usage['daily']): Usage => ({
  plan: 'pro',
  liveActivities: true,
  periodStart: '2026-02-01T00:00:00.000Z',
  periodEnd: '2026-03-01T00:00:00.000Z',
  minutesUsed: daily.reduce((n, d) => n + d.minutes, 0),
  quota: 10000,
  overage: false,
  overageMinutes: 0,
  activeActivities: 0,
  daily,
});

describe('usage chart', () => {
  test('every day of the period is there, with a running total and the future marked', () => {
    const days = periodDays(usage([{ date: '2026-02-02', minutes: 30 }, { date: '2026-02-05', minutes: 12 }]), Date.parse('2026-02-10T12:00:00Z'));
    expect(days).toHaveLength(28);
    expect(days[1]).toEqual({ date: '2026-02-02', minutes: 30, total: 30, future: false });
    expect(days[4]!.total).toBe(42);
    expect(days[9]!.future).toBe(false);
    expect(days[10]!.future).toBe(true);
  });

  test('the scale is rounded and shows the quota only when it is near the usage', () => {
    expect(niceMax(0)).toBe(10);
    expect(niceMax(7300)).toBe(10000);
    expect(niceMax(120)).toBe(200);
    expect(chartScale(3, 10000)).toEqual({ max: 10, quotaShown: false });
    expect(chartScale(4000, 10000)).toEqual({ max: 10000, quotaShown: true });
    expect(chartScale(50, null)).toEqual({ max: 50, quotaShown: false });
  });
});
