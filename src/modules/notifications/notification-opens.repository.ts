/** The device a notification was sent to, as an open report names it. */
export interface OpenedDevice {
  endUserId: string;
  platform: string;
}

/** How many devices opened one message. */
export interface OpenCount {
  messageId: number;
  count: number;
}

/** A message of the app's list (`notification_messages` joined with its `messages` row). */
export interface ListedMessageRow {
  publicId: string;
  messageId: number;
  /** JSON of its NotificationContent. */
  content: string;
  createdAt: number;
}

/** How many deliveries of a listed message are in one state. */
export interface MessageStateCount {
  messageId: number;
  status: string;
  count: number;
}

/** Opens reported by devices (`notification_opens`), and the app's messages listed with their counts. */
export interface NotificationOpensRepository {
  /**
   * The device, if it is the app's and a delivery of the message went to it (any state: the
   * device may show the push before its delivery's outcome is written). Deleted devices are not found.
   */
  sentTo(appId: string, messageId: number, deviceId: string): Promise<OpenedDevice | undefined>;
  /** Records an open; false when this device had reported it already. */
  record(messageId: number, deviceId: string, now: number): Promise<boolean>;
  /** Devices that opened the message. */
  count(messageId: number): Promise<number>;
  /** Opens of each of the messages (absent: none). */
  counts(messageIds: number[]): Promise<OpenCount[]>;
  /** The app's messages sent at once (a scheduled send's are listed from its parts), newest first. */
  page(appId: string, limit: number, offset: number): Promise<ListedMessageRow[]>;
  /** How many messages the app has (retention removes old ones). */
  total(appId: string): Promise<number>;
  /** Deliveries of each of the messages by state (through deliveries_message: only those messages' rows are read); a drop by a cancel is `cancelled`. */
  deliveryCounts(messageIds: number[]): Promise<MessageStateCount[]>;
}
