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
