import { HttpError } from './errors';
import { instantOf, offsetAt } from './wall-time';

/**
 * Quiet hours and frequency caps (issue 48) as values: their checks (400 naming the field) and
 * the arithmetic of a daily window in a zone. Stored as JSON (apps and end users); decided at a
 * send's fan-out (modules/notifications/send/delivery-limits.ts).
 */

/** A daily window of local time, `HH:MM` to `HH:MM` (24-hour clock); `end` before `start` crosses midnight. */
export interface QuietHours {
  start: string;
  end: string;
}

/** At most `count` counted notifications per end user in any `perHours` hours. */
export interface FrequencyCap {
  count: number;
  perHours: number;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const minutesOf = (text: string) => {
  const m = HH_MM.exec(text)!;
  return Number(m[1]) * 60 + Number(m[2]);
};

/**
 * The quiet hours `value` names, checked: 400 naming `field` (`quietHours.start`) for a time that
 * is not `HH:MM` from 00:00 to 23:59, and for a window that starts where it ends.
 * @example quietHours({ start: '22:00', end: '07:00' }) // { start: '22:00', end: '07:00' }
 */
export function quietHours(value: { start: unknown; end: unknown }, field = 'quietHours'): QuietHours {
  for (const key of ['start', 'end'] as const) {
    const v = value[key];
    if (typeof v !== 'string' || !HH_MM.test(v)) throw new HttpError(400, `${field}.${key} must be a time of day HH:MM from 00:00 to 23:59: got ${JSON.stringify(v ?? null)?.slice(0, 40)}`);
  }
  if (value.start === value.end) throw new HttpError(400, `${field}.start and ${field}.end must differ (a window of no time, or of the whole day, holds nothing meaningful)`);
  return { start: value.start as string, end: value.end as string };
}

/**
 * The frequency cap `value` names, checked: 400 naming the field unless `count` is an integer
 * from 1 to 1,000 and `perHours` one from 1 to 168.
 * @example frequencyCap({ count: 2, perHours: 24 }) // { count: 2, perHours: 24 }
 */
export function frequencyCap(value: { count: unknown; perHours: unknown }, field = 'frequencyCap'): FrequencyCap {
  const check = (key: 'count' | 'perHours', max: number) => {
    const v = value[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw new HttpError(400, `${field}.${key} must be an integer from 1 to ${max.toLocaleString('en-US')}: got ${JSON.stringify(v ?? null)}`);
  };
  check('count', 1000);
  check('perHours', 168);
  return { count: value.count as number, perHours: value.perHours as number };
}

/** A stored setting (JSON text or null) read back. */
export const storedQuietHours = (text: string | null): QuietHours | null => (text === null ? null : (JSON.parse(text) as QuietHours));
export const storedFrequencyCap = (text: string | null): FrequencyCap | null => (text === null ? null : (JSON.parse(text) as FrequencyCap));

/**
 * When the window ends, if `now` is inside it in `zone`: the next instant the zone's clocks show
 * `end` (a wall time the clocks skip is the moment of the change); undefined outside the window.
 * @example quietUntil({ start: '22:00', end: '07:00' }, 'Europe/Vienna', Date.parse('2026-01-10T22:30:00Z')) // Date.parse('2026-01-11T06:00:00Z')
 */
export function quietUntil(window: QuietHours, zone: string, now: number): number | undefined {
  const local = now + offsetAt(zone, now);
  const day = Math.floor(local / DAY) * DAY;
  const minute = Math.floor((local - day) / 60_000);
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const inside = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!inside) return undefined;
  // The end today, else tomorrow (local calendar), as the zone's clocks will show it.
  const endToday = day + end * 60_000;
  const wall = new Date(endToday > local ? endToday : endToday + DAY);
  const at = instantOf({ year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate(), hour: wall.getUTCHours(), minute: wall.getUTCMinutes(), second: 0 }, zone);
  // A clock change can put that instant at or before now (the hour repeated): a minute ahead then.
  return at > now ? at : now + 60_000;
}

const DAY = 86_400_000;
