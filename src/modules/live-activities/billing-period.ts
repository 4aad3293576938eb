/**
 * The billing period holding `ms`: the calendar month in UTC, as [start, end) in ms.
 * @example billingPeriod(Date.parse('2026-03-15T10:00:00Z')) // { start: 2026-03-01, end: 2026-04-01 }
 */
export function billingPeriod(ms: number): { start: number; end: number } {
  const d = new Date(ms);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}
