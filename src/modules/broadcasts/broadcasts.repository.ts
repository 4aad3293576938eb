export type BroadcastEnvironment = 'production' | 'sandbox' | 'simulator';
export type ChannelState = 'creating' | 'open' | 'deleted' | 'failed';

export interface BroadcastRow {
  id: string;
  appId: string;
  templateSlug: string;
  /** JSON. */
  attributes: string;
  /** JSON. */
  contentState: string;
  storagePolicy: 0 | 1;
  state: 'Active' | 'Ended';
  environment: BroadcastEnvironment;
  channelId: string | null;
  channelState: ChannelState;
  channelReason: string | null;
  topic: string;
  lastTimestamp: number;
  updatesSent: number;
  subscribersStarted: number;
  heldReason: string | null;
  endReason: string | null;
  startedAt: number;
  endedAt: number | null;
}

export type OpKind = 'create_channel' | 'update' | 'end' | 'delete_channel';

export interface BroadcastOp {
  id: number;
  broadcastId: string;
  appId: string;
  kind: OpKind;
  content: string | null;
  status: 'pending' | 'done' | 'failed' | 'superseded';
  apnsDone: boolean;
  fcmDone: boolean;
  attempts: number;
  nextAttemptAt: number;
  reason: string | null;
}

/** A broadcast as create writes it. */
export type NewBroadcast = Pick<
  BroadcastRow,
  'id' | 'appId' | 'templateSlug' | 'attributes' | 'contentState' | 'storagePolicy' | 'environment' | 'channelId' | 'channelState' | 'topic' | 'lastTimestamp' | 'startedAt'
>;

/** The broadcasts repository and its outbox (`broadcast_ops`), one implementation for both databases: src/db/repositories/broadcasts.ts. */
export interface BroadcastsRepository {
  insert(row: NewBroadcast): Promise<void>;
  find(appId: string, id: string): Promise<BroadcastRow | undefined>;
  byId(id: string): Promise<BroadcastRow | undefined>;
  /** A page of the app's broadcasts, newest first, and how many match. */
  list(appId: string, state: 'Active' | 'Ended' | undefined, limit: number, offset: number): Promise<{ rows: BroadcastRow[]; total: number }>;
  /** Channels the app holds (or is making) at Apple in this environment, as Islet knows them. */
  channelCount(appId: string, environment: BroadcastEnvironment): Promise<number>;
  /** Every channel id Islet ever had for the app in this environment (orphans are the others). */
  knownChannels(appId: string, environment: BroadcastEnvironment): Promise<Set<string>>;
  activeCount(appId: string): Promise<number>;
  /** Apps with an Active broadcast, with their plans, and the ids of those broadcasts (the quota job). */
  appsWithActive(): Promise<{ appId: string; plan: string; ids: string[] }[]>;
  recordEvent(id: string, contentState: string, lastTimestamp: number): Promise<void>;
  /** Ends an Active broadcast; false when it was not Active. */
  end(id: string, reason: string, endedAt: number): Promise<boolean>;
  setChannel(id: string, state: ChannelState, channelId: string | null, reason: string | null): Promise<void>;
  setHeld(id: string, reason: string | null): Promise<void>;
  countUpdateSent(id: string): Promise<void>;
  addSubscribers(id: string, n: number): Promise<void>;
  /** Milliseconds the app's broadcasts ran inside [from, to). */
  runningMs(appId: string, from: number, to: number): Promise<number>;
  queue(op: { broadcastId: string; appId: string; kind: OpKind; content: string | null; dueAt: number }, now: number): Promise<void>;
  /** Latest wins: the broadcast's updates not attempted yet are superseded; returns how many. */
  supersedeUpdates(broadcastId: string, now: number): Promise<number>;
  /**
   * The first unfinished step of each broadcast, when it is due (steps of one broadcast go in order).
   * PostgreSQL: claimed for this instance, so two sending instances never take the same step (saveOp ends the claim).
   */
  due(now: number, limit: number): Promise<BroadcastOp[]>;
  saveOp(op: BroadcastOp, now: number): Promise<void>;
  /** The broadcast is over: its steps still pending fail with `reason` (the channel's deletion still runs). */
  failPending(broadcastId: string, reason: string, now: number): Promise<void>;
  ops(broadcastId: string): Promise<BroadcastOp[]>;
  /** Retention: finished steps last changed before `opsBefore`, and ended broadcasts (with their steps) ended before `endedBefore`. */
  prune(opsBefore: number, endedBefore: number): Promise<{ broadcastSteps: number; broadcasts: number }>;
}
