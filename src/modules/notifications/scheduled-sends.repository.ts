/** A part of a scheduled send: the deliveries due at one instant. */
export interface ScheduledSendRow {
  id: number;
  /** The message's public id (`msg_…`). */
  publicId: string;
  appId: string;
  dueAt: number;
  /** JSON array of the zones this part reaches; null: every device. */
  zones: string | null;
  status: 'waiting' | 'sent' | 'cancelled' | 'expired' | 'failed';
  /** JSON of the prepared send (ScheduledSend in scheduled-sends.ts). */
  send: string;
  /** Deliveries queued when it went, or devices it would have reached when cancelled; null while waiting. */
  devices: number | null;
  createdAt: number;
}

/** The parts of scheduled sends (`scheduled_sends`). */
export interface ScheduledSendsRepository {
  /** Writes the waiting parts of one send. */
  insert(parts: Omit<ScheduledSendRow, 'id' | 'status' | 'devices'>[]): Promise<void>;
  /**
   * The earliest waiting part due at `now` or before, read through the due index. Inside a
   * transaction: on PostgreSQL the row is locked until it commits and skipped by other instances
   * (SKIP LOCKED), so claiming it and queueing its deliveries in one transaction sends it once.
   */
  claimDue(now: number): Promise<ScheduledSendRow | undefined>;
  /** Whether a waiting part is due at `now`: a read through the due index, before a transaction is opened for it. */
  anyDue(now: number): Promise<boolean>;
  /** Marks a waiting part done (sent, cancelled or expired); false when it was no longer waiting. */
  finish(id: number, status: Exclude<ScheduledSendRow['status'], 'waiting'>, devices: number): Promise<boolean>;
  /** Every part of the app's send with this public id, by due time. */
  ofMessage(appId: string, publicId: string): Promise<ScheduledSendRow[]>;
  /** The distinct zones the app's devices reported: a `sendAtLocal` plans a part for each beside the zones the runtime lists. */
  deviceZones(appId: string): Promise<string[]>;
  /** Deletes the parts no longer waiting that were due before `before` (retention); answers how many. */
  prune(before: number): Promise<number>;
  /** The app's waiting parts, by due time (the console's list). */
  waiting(appId: string, limit: number): Promise<ScheduledSendRow[]>;
  /** The app's scheduled sends, one per message: when it was made, and whether a part has a message row (a part went). */
  messages(appId: string): Promise<{ publicId: string; createdAt: number; went: boolean }[]>;
}
