/**
 * Local wall times (`2026-12-24T09:00`, no offset) and the UTC instants they fall at in each IANA
 * zone, computed with Intl (the runtime's time zone data), for `sendAtLocal`.
 */

/** A date and time of day without a zone, as `sendAtLocal` names it. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The wall time `text` names (`YYYY-MM-DDTHH:MM`, seconds optional), or undefined when it is not
 * one (an offset, a `Z`, a 31st of April, 24:00).
 * @example parseWallTime('2026-12-24T09:00') // { year: 2026, month: 12, day: 24, hour: 9, minute: 0, second: 0 }
 */
export function parseWallTime(text: string): WallTime | undefined {
  const m = LOCAL.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  const wall = { year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: second! };
  // Date.UTC rolls 31 April over to 1 May: a wall time that does not read back is not a date.
  const back = new Date(wallMs(wall));
  if (back.getUTCMonth() + 1 !== wall.month || back.getUTCDate() !== wall.day || wall.hour > 23 || wall.minute > 59 || wall.second > 59) return undefined;
  return wall;
}

/** The wall time read as if it were UTC, in milliseconds: the arithmetic's common ground. */
const wallMs = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

const formats = new Map<string, Intl.DateTimeFormat>();
function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/**
 * The zone's offset from UTC at `instant`, in milliseconds (Kathmandu: +5:45 = 20,700,000).
 * @example offsetAt('Asia/Kathmandu', Date.UTC(2026, 0, 1)) // 20700000
 */
export function offsetAt(zone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatIn(zone).formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  // Intl has no milliseconds part: compare whole seconds.
  return local - Math.floor(instant / 1000) * 1000;
}

/**
 * The UTC instant at which the clocks of `zone` show `wall`. A wall time that occurs twice (the
 * hour repeated when clocks go back) is its first occurrence; one that does not occur (skipped when
 * clocks go forward) is the next valid instant: the moment of the change (02:30 on a spring-forward
 * night in Europe/Vienna is 03:00 there, 01:00 UTC).
 * @example instantOf(parseWallTime('2026-12-24T09:00')!, 'Pacific/Kiritimati') // Date.parse('2026-12-23T19:00:00Z')
 */
export function instantOf(wall: WallTime, zone: string): number {
  const w = wallMs(wall);
  // The instants the wall time would be under the offsets in force a day either side: covers every real transition.
  const candidates = [...new Set([offsetAt(zone, w - DAY), offsetAt(zone, w), offsetAt(zone, w + DAY)].map((o) => w - o))].sort((a, b) => a - b);
  for (const t of candidates) if (t + offsetAt(zone, t) === w) return t;
  // In a gap: the change happened between the earliest and latest candidate; find its second.
  let before = candidates[0]!;
  let after = candidates[candidates.length - 1]!;
  const local = (t: number) => t + offsetAt(zone, t);
  while (after - before > 1000) {
    const mid = before + Math.floor((after - before) / 2000) * 1000;
    if (local(mid) > w) after = mid;
    else before = mid;
  }
  return after;
}

const DAY = 86_400_000;

/**
 * The zones grouped by the instant `wall` falls at in each, earliest first: a `sendAtLocal` goes
 * out once per group.
 * @example groupByInstant(wall, ['Europe/Vienna', 'Europe/Berlin', 'UTC']) // [{ instant, zones: ['Europe/Vienna', 'Europe/Berlin'] }, { instant, zones: ['UTC'] }]
 */
export function groupByInstant(wall: WallTime, zones: Iterable<string>): { instant: number; zones: string[] }[] {
  const groups = new Map<number, string[]>();
  for (const zone of new Set(zones)) {
    const instant = instantOf(wall, zone);
    const group = groups.get(instant);
    if (group) group.push(zone);
    else groups.set(instant, [zone]);
  }
  return [...groups].sort(([a], [b]) => a - b).map(([instant, zones]) => ({ instant, zones }));
}

/** Every zone the runtime knows by its primary name, and UTC: what a `sendAtLocal` plans for beside the zones devices reported. */
export function knownZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone')];
}
