import type { activities } from './live-activities.tables';

/** The APNs timestamp (Unix seconds) of an event at `now` ms with no earlier event. */
export const firstTimestamp = (now: number) => Math.floor(now / 1000);

/** The APNs timestamp of an event at `now` ms after one stamped `last` (see `nextTimestamp`). */
export const timestampAfter = (last: number, now: number) => Math.max(firstTimestamp(now), last + 1);

export type ActivityRow = typeof activities.$inferSelect;

export type ActivityState = ActivityRow['state'];

export type Platform = ActivityRow['platform'];

export interface ActivityFilter {
  state?: ActivityState;
  endUserId?: string;
  templateSlug?: string;
}

/** A new Active activity, its JSON columns already serialised (shared by a whole start). */
export interface NewActivity {
  id: string;
  appId: string;
  endUserId: string;
  templateSlug: string;
  platform: Platform;
  attributes: string;
  contentState: string;
  startedAt: number;
}

/** The live-activities repository: what every database implements (one implementation for both databases: src/db/repositories/live-activities.ts). */
export interface LiveActivitiesRepository {
  /** Writes new Active activities, many rows per statement; the caller holds the transaction. */
  insert(rows: readonly NewActivity[]): Promise<void>;
  /** The activity with that id, whatever its app (the scheduler's look-ups). */
  byId(id: string): Promise<ActivityRow | undefined>;
  /** Active activities started at or before `cutoff` of which no instance is live. */
  activeWithoutLiveInstance(cutoff: number): Promise<ActivityRow[]>;
  /** The app's activity with that id; another app's id is simply not found. */
  find(appId: string, id: string): Promise<ActivityRow | undefined>;
  /**
   * `find` for a write that computes from the row (its state, its lastTimestamp): the row stays the
   * latest until the transaction ends. PostgreSQL locks it (`FOR UPDATE`: concurrent writers, also
   * on other instances, wait); SQLite's one writer makes it `find`.
   */
  findForWrite(appId: string, id: string): Promise<ActivityRow | undefined>;
  /**
   * An update of an Active activity: its new contentState and the APNs timestamp of the update
   * (`timestampAfter` its row's `lastTimestamp`, read in the same transaction), in one statement.
   * False when it is not (or no longer) Active.
   */
  recordUpdate(id: string, contentState: string, apnsTimestamp: number): Promise<boolean>;
  /** Retention: deletes Ended activities that ended before `before` and have no delivery left to send. */
  pruneEnded(before: number): Promise<number>;
  /** Marks an Active activity Ended (with a final contentState, JSON, when given); false when it was not Active. */
  markEnded(id: string, endedAt: number, reason: string, finalState: string | null): Promise<boolean>;
  /**
   * The APNs timestamp of the activity's next event, and records it: the current second, or one
   * more than the last event's when that is not older. iOS ignores an event whose timestamp is not
   * newer than the last it applied, and the field has whole seconds, so two events in one second
   * would otherwise tie and the second be lost. The price: a burst of n events in one second runs
   * up to n seconds ahead of the clock, and the lead shrinks again as soon as events slow down.
   * Every instance gets every event of its activity in this order, so this is strictly increasing
   * per instance too. Called inside the transaction that queues the event.
   */
  nextTimestamp(id: string, now: number): Promise<number>;
  /** A page of the app's activities, newest first (startedAt, then id), and how many match in all. */
  list(appId: string, filter: ActivityFilter, limit: number, offset: number): Promise<{ rows: ActivityRow[]; total: number }>;
}
