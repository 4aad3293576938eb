import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import { instantOf, parseWallTime, type WallTime } from '../../lib/wall-time';

/** How far in the past a start time may be (a clock a little behind, a slow request) before it is refused: as `sendAt`. */
export const START_PAST_GRACE_MS = 60_000;
/** How far ahead a start may be scheduled. */
export const START_MAX_AHEAD_MS = 30 * 86_400_000;

/** When a scheduled start goes: one instant (`startAt`), or a wall time in each end user's zone (`startAtLocal`). */
export type StartTime = { at: number } | { local: WallTime; text: string };

// ISO 8601 with an offset or Z, as RFC 3339 writes it (seconds and fractions optional): as `sendAt`.
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * The start time a start names, or undefined for a start now. 400 naming `startAt` for both fields
 * at once, a malformed time, one more than a minute in the past or more than 30 days ahead; naming
 * `startAtLocal` for a malformed wall time.
 * @example startTimeOf({ startAt: '2026-12-24T20:00:00+01:00' }, now) // { at: Date.parse('2026-12-24T19:00:00Z') }
 */
export function startTimeOf(input: { startAt?: string; startAtLocal?: string }, now: number): StartTime | undefined {
  if (input.startAt !== undefined && input.startAtLocal !== undefined)
    throw new HttpError(400, "startAt and startAtLocal cannot both be given: choose one instant, or one wall time in each end user's zone");
  if (input.startAtLocal !== undefined) {
    const local = parseWallTime(input.startAtLocal);
    if (!local) throw new HttpError(400, `startAtLocal must be a local date and time without offset, like 2026-12-24T20:00 (seconds optional): got ${JSON.stringify(input.startAtLocal)}`);
    return { local, text: input.startAtLocal };
  }
  if (input.startAt === undefined) return undefined;
  const at = WITH_OFFSET.test(input.startAt) ? Date.parse(input.startAt) : Number.NaN;
  if (Number.isNaN(at)) throw new HttpError(400, `startAt must be an ISO 8601 time with an offset or Z, like 2026-12-24T20:00:00+01:00: got ${JSON.stringify(input.startAt)}`);
  checkStartWindow('startAt', at, now);
  return { at };
}

/** 400 naming `field` for a start time more than a minute in the past or more than 30 days ahead. */
export function checkStartWindow(field: string, at: number, now: number): void {
  if (at < now - START_PAST_GRACE_MS) throw new HttpError(400, `${field} is in the past (${isoTime(at)})`);
  if (at > now + START_MAX_AHEAD_MS) throw new HttpError(400, `${field} is more than 30 days ahead (${isoTime(at)}); schedule at most 30 days ahead`);
}

/**
 * When a start is due for one end user: the instant, or the wall time in `zone` (the zone of the
 * device the activity's platform comes from, else the app's default). Undefined when that wall time
 * has passed there (a minute's grace): that end user gets no activity, as a `sendAtLocal` skips
 * the zones where its time has passed.
 */
export function dueAtFor(time: StartTime, zone: string, now: number): number | undefined {
  if ('at' in time) return time.at;
  const at = instantOf(time.local, zone);
  if (at < now - START_PAST_GRACE_MS) return undefined;
  checkStartWindow('startAtLocal', at, now);
  return at;
}
