export interface StreamRow {
  appId: string;
  key: string;
  templateSlug: string;
  /** JSON. */
  attributes: string;
  /** JSON array, or null for every connected end user. */
  targetUsers: string | null;
  /** JSON. */
  contentState: string;
  /** JSON array of activity ids. */
  activityIds: string;
  startedAt: number;
  updatedAt: number;
}

/** The activity-streams repository: one implementation for both databases, src/db/repositories/activity-streams.ts. */
export interface ActivityStreamsRepository {
  find(appId: string, key: string): Promise<StreamRow | undefined>;
  save(row: StreamRow): Promise<void>;
  remove(appId: string, key: string): Promise<void>;
}
