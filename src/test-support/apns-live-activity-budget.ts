/**
 * Apple's budget of Live Activity updates, as the modelled iPhone keeps it (issue 47). Apple:
 * priority-10 updates are delivered at once but spend a budget the system keeps per activity;
 * past it, updates are delayed or dropped while APNs still answers 200 (“Starting and updating
 * Live Activities with ActivityKit push notifications”, Determine the update frequency; DTS answers
 * in forum threads 734243, 797554, 799505). Priority 5 does not spend it and is delivered when the
 * system sees fit: modelled as delivered. When the person allowed frequent updates
 * (`frequentPushesEnabled`, with NSSupportsLiveActivitiesFrequentUpdates) the budget is larger.
 * Apple publishes no number: a test sets the one it needs. Starts and ends do not count here.
 */
export interface PhoneBudget {
  /** Priority-10 updates per activity in a sliding hour. */
  priority10PerHour: number;
  /** The same once the person allowed frequent updates; absent: the normal budget. */
  frequentPriority10PerHour?: number;
}

const HOUR_MS = 3_600_000;

export class LiveActivityBudgetModel {
  /** Absent: no budget is modelled (every update applies). */
  budget: PhoneBudget | undefined;
  /** ActivityAuthorizationInfo().frequentPushesEnabled on this phone. */
  frequentPushesEnabled = false;
  /** Updates the system dropped for the budget, as APNs answered 200 for them. */
  readonly throttled: { activityId: string; timestamp: number; contentState: unknown }[] = [];
  private readonly spent = new Map<string, number[]>();

  /**
   * Whether an update to `activityId` at `priority` (the `apns-priority` header; APNs' default is
   * 10) reaches the activity now; one at 10 within the budget spends it.
   */
  admits(activityId: string, priority: string | undefined, now: number, aps: { timestamp?: number; 'content-state'?: unknown }): boolean {
    if (!this.budget || priority === '5') return true;
    const limit = this.frequentPushesEnabled ? (this.budget.frequentPriority10PerHour ?? this.budget.priority10PerHour) : this.budget.priority10PerHour;
    const times = (this.spent.get(activityId) ?? []).filter((t) => t > now - HOUR_MS);
    if (times.length >= limit) {
      this.throttled.push({ activityId, timestamp: aps.timestamp ?? 0, contentState: aps['content-state'] });
      this.spent.set(activityId, times);
      return false;
    }
    this.spent.set(activityId, [...times, now]);
    return true;
  }
}
