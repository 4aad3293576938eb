import type { LiveActivityEvent } from '../../delivery/message-content';
import type { LiveActivityBudget } from '../../apps/live-activity-budget';

/**
 * `priority: "auto"` (issue 47): the APNs priority of one Live Activity push, decided where the push
 * is queued, in the unit of work that records it. Apple gives every activity on a device a budget of
 * priority-10 updates; past it iOS delays or drops them while APNs still answers 200. Priority 5
 * does not spend it. So a start, an end and an update with an alert (which must light the screen
 * now) go at 10; any other update goes at 10 while the instance's sliding hour holds fewer
 * priority-10 updates than its budget, else at 5. An explicit 10 or 5 goes as asked (and a 10 counts).
 */

export type RequestedPriority = 5 | 10 | 'auto';

/** The sliding window. */
export const BUDGET_WINDOW_MS = 3_600_000;

export type { LiveActivityBudget } from '../../apps/live-activity-budget';

/** The times (ms) of the priority-10 updates still within the hour before `now`, oldest first. */
export function windowOf(stored: string | null, now: number): number[] {
  if (!stored) return [];
  const times = JSON.parse(stored) as unknown;
  return Array.isArray(times) ? times.filter((t): t is number => typeof t === 'number' && t > now - BUDGET_WINDOW_MS) : [];
}

/** The budget that applies to a device: the frequent one once its app reported frequent pushes allowed. */
export const limitFor = (budget: LiveActivityBudget, frequentPushesEnabled: boolean | null): number =>
  frequentPushesEnabled ? budget.frequentPriority10PerHour : budget.priority10PerHour;

/**
 * The priority a push goes at.
 * @example decidePriority({ event: 'update', alert: false, requested: 'auto', sentInHour: 2, limit: 2 }) // 5
 */
export function decidePriority(push: { event: LiveActivityEvent; alert: boolean; requested: RequestedPriority; sentInHour: number; limit: number }): 5 | 10 {
  if (push.requested !== 'auto') return push.requested;
  if (push.event !== 'update' || push.alert) return 10;
  return push.sentInHour < push.limit ? 10 : 5;
}

/**
 * The window after one more priority-10 update at `now`, as stored: only the newest `keep` times
 * (the larger of the two budgets: a device may switch to the other), so a row never grows.
 */
export function spent(window: readonly number[], now: number, keep: number): string {
  return JSON.stringify([...window, now].slice(-Math.max(1, keep)));
}
