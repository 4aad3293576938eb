import { describe, expect, test } from 'bun:test';
import { sampleTexts, textsOf, typedValue, typedValues } from './custom-values';

describe('typed values of an app-defined template form', () => {
  test('each type from its text; text that is not of the type stays text for the check to name', () => {
    expect(typedValue({ type: 'integer' }, '7')).toBe(7);
    expect(typedValue({ type: 'number' }, '0.25')).toBe(0.25);
    expect(typedValue({ type: 'integer' }, 'soon')).toBe('soon');
    expect(typedValue({ type: 'boolean' }, 'false')).toBe(false);
    expect(typedValue({ type: 'date' }, ' 2026-11-28T09:30:00Z ')).toBe('2026-11-28T09:30:00Z');
    expect(typedValue({ type: 'string', list: true }, 'Main St, Station')).toEqual(['Main St', 'Station']);
    expect(typedValue({ type: 'integer', list: true }, '1, 2,3')).toEqual([1, 2, 3]);
  });

  test('empty inputs are left out; texts of held values round-trip', () => {
    const fields = { eta: { type: 'integer' as const, required: true }, stops: { type: 'string' as const, list: true }, note: { type: 'string' as const } };
    expect(typedValues(fields, { eta: '7', stops: 'A, B', note: '' })).toEqual({ eta: 7, stops: ['A', 'B'] });
    expect(typedValues(fields, textsOf({ eta: 7, stops: ['A', 'B'] }))).toEqual({ eta: 7, stops: ['A', 'B'] });
    expect(sampleTexts(fields, Date.parse('2026-01-01T00:00:00Z'))).toEqual({ eta: '1', stops: '', note: '' });
  });
});
