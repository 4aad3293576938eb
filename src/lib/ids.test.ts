import { describe, expect, test } from 'bun:test';
import { newId } from './ids';

describe('newId', () => {
  test('prefix, 9 time symbols that sort by time, 16 random symbols', () => {
    const a = newId('la', 1_700_000_000_000);
    const b = newId('la', 1_700_000_000_001);
    expect(a).toMatch(/^la_[0-9a-z]{9}[0-9a-hjkmnp-tv-z]{16}$/);
    expect(a.slice(0, 12) < b.slice(0, 12)).toBe(true);
  });

  test('every random symbol is about equally likely (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const n = 20_000;
    for (let i = 0; i < n; i++) for (const c of newId('x').slice(11)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = (n * 16) / 32;
    // 10,000 draws per symbol: a standard deviation of ~98; ±6 % is over 6 sigma. `byte % 36` gave
    // the first 4 symbols 8/7 of the others' share (+14 %), which this catches.
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.06);
  });
});
