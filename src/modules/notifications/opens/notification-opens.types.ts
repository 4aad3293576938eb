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
