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
