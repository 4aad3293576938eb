import type { Tx } from '../../../db/store';
import type { DeliveryTarget } from '../../delivery/outbox/outbox';
import type { LiveActivityEvent } from '../../delivery/message-content';
import type { InstanceTarget } from '../instances.types';
import { priorityBudgetRepository } from './priority-budget.repository';
import { decidePriority, limitFor, spent, windowOf, type LiveActivityBudget, type RequestedPriority } from './priority-decision';

/** Targets that go at one priority: queued as one message whose content carries it. */
export interface PriorityGroup {
  /** Absent: the content's default (10). */
  priority?: 5 | 10;
  targets: DeliveryTarget[];
}

export interface PushToPrioritize {
  activityId: string;
  event: LiveActivityEvent;
  alert: boolean;
  requested: RequestedPriority;
  now: number;
  /** Read only when an instance's decision needs it. */
  budget: () => Promise<LiveActivityBudget>;
}

/** An instance's sliding hour as it is once a priority-10 update was queued to it. */
export interface Spend {
  deviceId: string;
  /** JSON of the times (priority-decision.ts `spent`). */
  window: string;
}

/**
 * The targets of one event of an activity, grouped by the priority each goes at, in the unit of
 * work `tx` that queues them (which holds the activity's row lock, so concurrent updates through
 * other instances wait: the count is exact across instances). Each iOS instance an update goes to
 * at 10 has it recorded in its sliding hour. Android and web devices are not under Apple's budget:
 * `auto` sends them at 10 (FCM high), as before.
 * @example const groups = await prioritize(tx, { activityId, event: 'update', alert: false, requested: 'auto', now, budget }, instances, targets);
 */
export async function prioritize(tx: Tx, push: PushToPrioritize, instances: readonly InstanceTarget[], targets: readonly DeliveryTarget[]): Promise<PriorityGroup[]> {
  const { groups, spends } = await decideGroups(push, instances, targets);
  for (const s of spends) await priorityBudgetRepository(tx).spend(push.activityId, s.deviceId, s.window);
  return groups;
}

/**
 * `prioritize`'s decision without writing it: the groups, and the sliding hours to store with
 * them. The caller writes both in one go, from the instances it read with the activity, and only
 * if the activity is still as it read it (optimistic-update.ts on PostgreSQL): exact all the same.
 */
export async function decideGroups(push: PushToPrioritize, instances: readonly InstanceTarget[], targets: readonly DeliveryTarget[]): Promise<{ groups: PriorityGroup[]; spends: Spend[] }> {
  const asked = push.requested === 'auto' ? undefined : push.requested;
  const spends: Spend[] = [];
  if (push.event !== 'update') return { groups: [{ ...(asked ? { priority: asked } : {}), targets: [...targets] }], spends };
  const byDevice = new Map(instances.map((i) => [i.deviceId, i]));
  const groups = new Map<5 | 10, DeliveryTarget[]>();
  let budget: LiveActivityBudget | undefined;
  for (const target of targets) {
    const instance = byDevice.get(target.deviceId);
    let priority: 5 | 10 = asked ?? 10;
    if (instance?.platform === 'ios' && target.status !== 'failed') {
      budget ??= await push.budget();
      const window = windowOf(instance.priority10Sent, push.now);
      priority = decidePriority({ ...push, sentInHour: window.length, limit: limitFor(budget, instance.frequentPushesEnabled) });
      if (priority === 10) {
        const keep = Math.max(budget.priority10PerHour, budget.frequentPriority10PerHour);
        spends.push({ deviceId: target.deviceId, window: spent(window, push.now, keep) });
      }
    }
    groups.set(priority, [...(groups.get(priority) ?? []), target]);
  }
  if (groups.size === 0) return { groups: [{ ...(asked ? { priority: asked } : {}), targets: [] }], spends };
  return { groups: [...groups].map(([priority, list]) => ({ priority, targets: list })), spends };
}
