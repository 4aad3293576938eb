import { describe, expect, test } from 'bun:test';
import { groupByInstant, instantOf, knownZones, offsetAt, parseWallTime } from './wall-time';

const wall = (text: string) => parseWallTime(text)!;
const utc = (text: string) => Date.parse(text);

describe('parseWallTime', () => {
  test('takes minutes or seconds, nothing with an offset, and only real dates', () => {
    expect(parseWallTime('2026-12-24T09:00')).toEqual({ year: 2026, month: 12, day: 24, hour: 9, minute: 0, second: 0 });
    expect(parseWallTime('2026-12-24T09:00:30')?.second).toBe(30);
    for (const bad of ['2026-12-24T09:00Z', '2026-12-24T09:00+01:00', '2026-04-31T09:00', '2026-12-24T24:00', '2026-12-24', '2026-12-24 09:00', 'soon'])
      expect(parseWallTime(bad)).toBeUndefined();
  });
});

describe('instantOf', () => {
  test('zones with whole, odd and extreme offsets', () => {
    expect(instantOf(wall('2026-12-24T09:00'), 'UTC')).toBe(utc('2026-12-24T09:00:00Z'));
    expect(instantOf(wall('2026-12-24T09:00'), 'Pacific/Kiritimati')).toBe(utc('2026-12-23T19:00:00Z'));
    expect(instantOf(wall('2026-12-24T09:00'), 'Asia/Kathmandu')).toBe(utc('2026-12-24T03:15:00Z'));
    expect(instantOf(wall('2026-12-24T09:00'), 'America/Los_Angeles')).toBe(utc('2026-12-24T17:00:00Z'));
    expect(instantOf(wall('2026-07-01T09:00'), 'America/Los_Angeles')).toBe(utc('2026-07-01T16:00:00Z'));
    expect(instantOf(wall('2026-12-24T09:00'), 'Pacific/Chatham')).toBe(utc('2026-12-23T19:15:00Z'));
    expect(offsetAt('Asia/Kathmandu', utc('2026-01-01T00:00:00Z'))).toBe(20_700_000);
  });

  test('a wall time skipped by the clocks going forward is the moment of the change', () => {
    // Europe/Vienna, 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00 UTC).
    expect(instantOf(wall('2026-03-29T02:30'), 'Europe/Vienna')).toBe(utc('2026-03-29T01:00:00Z'));
    expect(instantOf(wall('2026-03-29T03:00'), 'Europe/Vienna')).toBe(utc('2026-03-29T01:00:00Z'));
    // America/Los_Angeles, 8 March 2026: 02:00 PST becomes 03:00 PDT (10:00 UTC).
    expect(instantOf(wall('2026-03-08T02:15'), 'America/Los_Angeles')).toBe(utc('2026-03-08T10:00:00Z'));
  });

  test('a wall time repeated by the clocks going back is its first occurrence', () => {
    // Europe/Vienna, 25 October 2026: 02:30 happens at 00:30 UTC (CEST) and 01:30 UTC (CET).
    expect(instantOf(wall('2026-10-25T02:30'), 'Europe/Vienna')).toBe(utc('2026-10-25T00:30:00Z'));
    expect(instantOf(wall('2026-10-25T03:30'), 'Europe/Vienna')).toBe(utc('2026-10-25T02:30:00Z'));
  });

  test('every known zone shows the wall time at its instant, or is in a gap', () => {
    for (const zone of knownZones()) {
      const t = instantOf(wall('2026-12-24T09:00'), zone);
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(t)).toBe('09:00');
    }
  });
});

describe('groupByInstant', () => {
  test('zones at the same instant form one group, earliest first', () => {
    const groups = groupByInstant(wall('2026-12-24T09:00'), ['UTC', 'Europe/Vienna', 'Europe/Berlin', 'Pacific/Kiritimati', 'Europe/Vienna']);
    expect(groups).toEqual([
      { instant: utc('2026-12-23T19:00:00Z'), zones: ['Pacific/Kiritimati'] },
      { instant: utc('2026-12-24T08:00:00Z'), zones: ['Europe/Vienna', 'Europe/Berlin'] },
      { instant: utc('2026-12-24T09:00:00Z'), zones: ['UTC'] },
    ]);
    // Every zone the runtime knows, in far fewer groups than zones.
    const all = groupByInstant(wall('2026-12-24T09:00'), knownZones());
    expect(all.length).toBeLessThan(60);
    expect(all.flatMap((g) => g.zones).length).toBe(new Set(knownZones()).size);
  });
});
