import type { ActivityRow } from './live-activities.repository';

/** A billing period, ms: [start, end). */
export interface Period {
  start: number;
  end: number;
}

/** The activity-usage repository: one implementation for both databases, src/db/repositories/activity-usage.ts. */
export interface ActivityUsageRepository {
  /** Milliseconds the app's billed activities were Active inside the period, an Active one counting up to `now`. */
  usedMs(appId: string, period: Period, now: number): Promise<number>;
  /** What billed activities that are no longer Active contributed inside the period, ms. */
  endedMs(appId: string, period: Period): Promise<number>;
  /** Each day (its start, ms) from the period's start to `now`, with the Active time of that day, ms. */
  dailyMs(appId: string, periodStart: number, now: number): Promise<{ day: number; ms: number }[]>;
  /** Apps with an Active activity, and their plans (the quota job looks only at these). */
  appsWithActive(): Promise<{ id: string; plan: string }[]>;
  activeCount(appId: string): Promise<number>;
  /** The Active activities of an app, oldest first. */
  active(appId: string): Promise<ActivityRow[]>;
}
