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
