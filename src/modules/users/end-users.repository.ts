import type { ActivityRow } from '../live-activities/live-activities.repository';

/** What erasing an end user removed (the DELETE's answer). */
export interface Erased {
  devices: number;
  tokens: number;
  tags: number;
  liveActivities: number;
  /** Whether the end user was marked as a tester (the flag is gone with them). */
  tester: boolean;
}

/** The end-users repository (tags and erasure): one implementation for both databases, src/db/repositories/end-users.ts. */
export interface EndUsersRepository {
  /** Whether the app knows the end user: a registration, tags or a device. */
  exists(appId: string, endUserId: string): Promise<boolean>;
  /** The end user's tags, keys in order. */
  tags(appId: string, endUserId: string): Promise<Record<string, string>>;
  /** Creates the end user when absent (a PUT or PATCH of tags before any device). */
  ensure(appId: string, endUserId: string, now: number): Promise<void>;
  /** Replaces the whole set of tags; the caller holds the transaction. */
  replaceTags(appId: string, endUserId: string, tags: Record<string, string>): Promise<void>;
  /** Sets the keys of `set` and removes those of `remove`; the caller holds the transaction. */
  mergeTags(appId: string, endUserId: string, set: Record<string, string>, remove: readonly string[]): Promise<void>;
  /** The end user's Active activities (read to end them before an erasure). */
  activeActivities(appId: string, endUserId: string): Promise<ActivityRow[]>;
  /**
   * Removes everything Islet keeps about the end user, in the caller's transaction, after their
   * activities were ended: tags, the end_users row (tester flag), devices with their tokens and
   * activity instances, activities with their messages. A device or activity whose end push still
   * waits is kept anonymous (end user id ANONYMOUS, src/lib/anonymous.ts; no locale, zone, OS
   * version, data '{}', only the token the end push goes to, never a target) until `pruneErased`
   * finds it delivered; the requests already sent to it and its other messages' texts go now.
   * Notification deliveries to the devices lose their device, token and request; a message that
   * went only to them loses its texts.
   */
  erase(appId: string, endUserId: string): Promise<Erased>;
  /**
   * Removes the anonymous leftovers of erasures whose end pushes are no longer waiting (and the
   * requests of those that went while another still waits); answers how many rows went. Run by the
   * delivery worker once such an end push is recorded, and by the retention job.
   */
  pruneErased(): Promise<number>;
}
