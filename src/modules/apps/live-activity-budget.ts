import { HttpError } from '../../lib/errors';
import type { AppRow } from './apps.types';

/** Priority-10 updates per activity per device in a sliding hour (the app's `liveActivityBudget`, issue 47). */
export interface LiveActivityBudget {
  priority10PerHour: number;
  /** For a device whose app reported `frequentPushesEnabled: true`. */
  frequentPriority10PerHour: number;
}

/**
 * The defaults of an app's `liveActivityBudget` (docs/live-activity-budget.md says why; live-activities/priority-budget uses it). Apple
 * publishes no number and says the budget may change; a DTS engineer's answers: updates every few
 * seconds run it out quickly and are then seen every 30-60 s, and activities are "designed for
 * occasional updates". So 10 an hour (one every 6 minutes on average, room for bursts), and 60 an
 * hour (one a minute) where the person allowed frequent updates.
 */
export const DEFAULT_LIVE_ACTIVITY_BUDGET: LiveActivityBudget = { priority10PerHour: 10, frequentPriority10PerHour: 60 };

/** The largest value either setting takes: one every 6 s, far past what Apple honours; a window keeps at most this many times. */
export const MAX_PRIORITY10_PER_HOUR = 600;

/** The budget an app keeps to: its settings, else the defaults. */
export function budgetOf(row: Pick<AppRow, 'laPriority10PerHour' | 'laFrequentPriority10PerHour'> | undefined): LiveActivityBudget {
  return {
    priority10PerHour: row?.laPriority10PerHour ?? DEFAULT_LIVE_ACTIVITY_BUDGET.priority10PerHour,
    frequentPriority10PerHour: row?.laFrequentPriority10PerHour ?? DEFAULT_LIVE_ACTIVITY_BUDGET.frequentPriority10PerHour,
  };
}

/** The app's columns for a budget given through the admin API or the TOML file (undefined: unchanged). */
export function budgetColumns(budget: Partial<LiveActivityBudget> | undefined): Partial<Pick<AppRow, 'laPriority10PerHour' | 'laFrequentPriority10PerHour'>> {
  if (!budget) return {};
  for (const [field, value] of Object.entries(budget)) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > MAX_PRIORITY10_PER_HOUR))
      throw new HttpError(400, `liveActivityBudget.${field} must be an integer from 0 to ${MAX_PRIORITY10_PER_HOUR}`);
  }
  return {
    ...(budget.priority10PerHour !== undefined ? { laPriority10PerHour: budget.priority10PerHour } : {}),
    ...(budget.frequentPriority10PerHour !== undefined ? { laFrequentPriority10PerHour: budget.frequentPriority10PerHour } : {}),
  };
}
