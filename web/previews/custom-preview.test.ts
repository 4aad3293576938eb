import { expect, test } from 'bun:test';
import { customRows } from './custom-preview';

test('the generic preview lists every field of an app-defined template with its value, attributes first, typed values as JSON', () => {
  expect(customRows({ driver: 'Ana', seats: 3 }, { etaMinutes: 7, arrived: false, pickupAt: '2026-11-28T09:30:00Z', stops: ['Main St', 'Station'] })).toEqual([
    { part: 'attributes', name: 'driver', value: 'Ana' },
    { part: 'attributes', name: 'seats', value: '3' },
    { part: 'contentState', name: 'etaMinutes', value: '7' },
    { part: 'contentState', name: 'arrived', value: 'false' },
    { part: 'contentState', name: 'pickupAt', value: '2026-11-28T09:30:00Z' },
    { part: 'contentState', name: 'stops', value: '["Main St","Station"]' },
  ]);
});
