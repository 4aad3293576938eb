import { HttpError } from '../lib/errors';

/** A date field as ms since the epoch, or 400 naming the field. */
export function parseDate(value: string | number, field: string): number {
  const ms = typeof value === 'number' ? value * 1000 : /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) throw new HttpError(400, `${field} must be an ISO 8601 date-time or Unix seconds`);
  return Math.round(ms);
}
