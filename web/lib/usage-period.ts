/** The arithmetic of the usage chart: the days of the billing period and the scale. */
import type { Usage } from './types';

const DAY = 86_400_000;

/** Every day of the period with its minutes (0 where the API has none) and the running total. */
export function periodDays(usage: Usage, now = Date.now()): { date: string; minutes: number; total: number; future: boolean }[] {
  const byDate = new Map(usage.daily.map((d) => [d.date, d.minutes]));
  const start = Date.parse(usage.periodStart.slice(0, 10));
  const end = Date.parse(usage.periodEnd);
  const today = new Date(now).toISOString().slice(0, 10);
  const days = [];
  let total = 0;
  for (let t = start; t < end; t += DAY) {
    const date = new Date(t).toISOString().slice(0, 10);
    const minutes = byDate.get(date) ?? 0;
    total += minutes;
    days.push({ date, minutes, total, future: date > today });
  }
  return days;
}

/** A rounded axis maximum: 1, 2 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (value <= 0) return 10;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

/**
 * The scale of the chart: the usage so far, with the quota line on it when the quota is near
 * enough to be drawn without flattening the usage into the axis.
 */
export function chartScale(minutesUsed: number, quota: number | null): { max: number; quotaShown: boolean } {
  const used = Math.max(minutesUsed, 10);
  const quotaShown = quota !== null && quota <= used * 4;
  return { max: niceMax(quotaShown ? Math.max(used, quota!) : used), quotaShown };
}
