/** A sent notification as its public id finds it. */
export interface NotificationMessageRow {
  /** The `messages` row. */
  messageId: number;
  /** JSON of its NotificationContent (template slug, release version). */
  content: string;
  createdAt: number;
}

/** How many deliveries of a message are in one state on one platform (null: the device was deleted since). */
export interface DeliveryStateCount {
  platform: string | null;
  status: string;
  count: number;
}

/** The public ids of sent notifications (`notification_messages`), and what their deliveries became. */
export interface NotificationMessagesRepository {
  /** Records the public id of a message just queued, in the send's transaction. */
  insert(publicId: string, appId: string, messageId: number): Promise<void>;
  /** Records a further message of a localized send (one per localization used), counted with `mainMessageId`'s. */
  insertVariant(mainMessageId: number, messageId: number): Promise<void>;
  /** The message with this public id, if it is the app's (and retention has not removed it). */
  find(appId: string, publicId: string): Promise<NotificationMessageRow | undefined>;
  /** The deliveries of the message and of its variants counted by platform and status. */
  counts(messageId: number): Promise<DeliveryStateCount[]>;
  /** Drops the deliveries of the message and its variants that wait (queued or held): what a cancel stops. Answers how many. */
  cancelWaiting(messageId: number): Promise<number>;
}
