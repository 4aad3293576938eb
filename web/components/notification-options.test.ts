import { describe, expect, test } from 'bun:test';
import { draftOf, optionCount, optionsOf } from './notification-options';

describe('notification template options in the console', () => {
  test("a template's options make a draft that gives them back", () => {
    const options = { subtitle: 'S', data: { url: 'a=b', k: '' }, badge: 0, relevanceScore: 0.5, ttlSeconds: 60, priority: 'normal', interruptionLevel: 'critical' } as const;
    expect(optionsOf(draftOf(options))).toEqual({ options });
    expect(optionCount(options)).toBe(7);
    expect(optionCount(undefined)).toBe(0);
  });

  test('empty fields are left out; a data line without = is refused naming it', () => {
    const draft = { ...draftOf(undefined), sound: ' ', data: 'url=x\n\noops' };
    expect(optionsOf(draft)).toEqual({ options: {}, error: 'data: "oops" is not key=value' });
  });

  test('silent leaves out what a background push cannot carry, keeping data, collapse id, ttl and priority', () => {
    const draft = { ...draftOf({ badge: 1, sound: 'x', subtitle: 's', collapseId: 'c', ttlSeconds: 5, priority: 'high' }), silent: true, data: 'sync=1' };
    expect(optionsOf(draft).options).toEqual({ silent: true, data: { sync: '1' }, collapseId: 'c', ttlSeconds: 5, priority: 'high' });
  });
});
