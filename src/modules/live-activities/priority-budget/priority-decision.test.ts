import { describe, expect, test } from 'bun:test';
import { BUDGET_WINDOW_MS, decidePriority, limitFor, spent, windowOf } from './priority-decision';

describe('priority "auto"', () => {
  const update = { event: 'update' as const, alert: false, requested: 'auto' as const };

  test('a plain update goes at 10 while the hour holds fewer priority-10 updates than the budget, then at 5', () => {
    expect(decidePriority({ ...update, sentInHour: 1, limit: 2 })).toBe(10);
    expect(decidePriority({ ...update, sentInHour: 2, limit: 2 })).toBe(5);
    expect(decidePriority({ ...update, sentInHour: 0, limit: 0 })).toBe(5);
  });

  test('a start, an end and an update with an alert go at 10 whatever the budget; an explicit priority goes as asked', () => {
    expect(decidePriority({ ...update, event: 'start', sentInHour: 9, limit: 2 })).toBe(10);
    expect(decidePriority({ ...update, event: 'end', sentInHour: 9, limit: 2 })).toBe(10);
    expect(decidePriority({ ...update, alert: true, sentInHour: 9, limit: 2 })).toBe(10);
    expect(decidePriority({ ...update, requested: 10, sentInHour: 9, limit: 2 })).toBe(10);
    expect(decidePriority({ ...update, requested: 5, sentInHour: 0, limit: 2 })).toBe(5);
  });

  test('the window slides: times an hour old or more no longer count, and it keeps only the newest times', () => {
    const now = 10 * BUDGET_WINDOW_MS;
    expect(windowOf(JSON.stringify([now - BUDGET_WINDOW_MS, now - BUDGET_WINDOW_MS + 1, now - 5]), now)).toEqual([now - BUDGET_WINDOW_MS + 1, now - 5]);
    expect(windowOf(null, now)).toEqual([]);
    expect(JSON.parse(spent([1, 2, 3], 4, 2))).toEqual([3, 4]);
  });

  test('a device that reported frequent pushes allowed gets the frequent budget', () => {
    const budget = { priority10PerHour: 2, frequentPriority10PerHour: 50 };
    expect(limitFor(budget, true)).toBe(50);
    expect(limitFor(budget, false)).toBe(2);
    expect(limitFor(budget, null)).toBe(2);
  });
});
