import { describe, expect, test } from 'bun:test';
import { frequencyCap, quietHours, quietUntil } from './delivery-limits';

describe('quietUntil', () => {
  const night = { start: '22:00', end: '07:00' };
  test('a window crossing midnight: inside before and after midnight, outside by day; its end the next 07:00 there', () => {
    // Vienna is UTC+1 in January.
    expect(quietUntil(night, 'Europe/Vienna', Date.parse('2026-01-10T21:30:00Z'))).toBe(Date.parse('2026-01-11T06:00:00Z'));
    expect(quietUntil(night, 'Europe/Vienna', Date.parse('2026-01-11T02:00:00Z'))).toBe(Date.parse('2026-01-11T06:00:00Z'));
    expect(quietUntil(night, 'Europe/Vienna', Date.parse('2026-01-11T06:00:00Z'))).toBeUndefined();
    expect(quietUntil(night, 'Europe/Vienna', Date.parse('2026-01-11T20:59:59Z'))).toBeUndefined();
    expect(quietUntil(night, 'Europe/Vienna', Date.parse('2026-01-11T21:00:00Z'))).toBe(Date.parse('2026-01-12T06:00:00Z'));
  });

  test('a window within one day; quarter-hour offsets', () => {
    const lunch = { start: '12:00', end: '13:30' };
    // Kathmandu is UTC+5:45: 12:00 there is 06:15 UTC.
    expect(quietUntil(lunch, 'Asia/Kathmandu', Date.parse('2026-01-10T06:15:00Z'))).toBe(Date.parse('2026-01-10T07:45:00Z'));
    expect(quietUntil(lunch, 'Asia/Kathmandu', Date.parse('2026-01-10T06:14:59Z'))).toBeUndefined();
  });

  test('an end the clocks skip is the moment of the change', () => {
    // Vienna springs forward on 2026-03-29 at 02:00 (01:00 UTC): 02:30 does not occur; 03:00 CEST is 01:00 UTC.
    expect(quietUntil({ start: '23:00', end: '02:30' }, 'Europe/Vienna', Date.parse('2026-03-28T23:30:00Z'))).toBe(Date.parse('2026-03-29T01:00:00Z'));
  });
});

describe('checks', () => {
  test('HH:MM from 00:00 to 23:59, start and end differing; caps within bounds', () => {
    expect(quietHours({ start: '00:00', end: '23:59' })).toEqual({ start: '00:00', end: '23:59' });
    for (const bad of [{ start: '24:00', end: '07:00' }, { start: '9:00', end: '07:00' }, { start: '22:00', end: 7 }, { start: '22:00', end: '22:00' }])
      expect(() => quietHours(bad)).toThrow(/quietHours\.(start|end)/);
    expect(frequencyCap({ count: 1, perHours: 1 })).toEqual({ count: 1, perHours: 1 });
    expect(() => frequencyCap({ count: 1, perHours: 168.5 })).toThrow('frequencyCap.perHours must be an integer from 1 to 168');
  });
});
