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
