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
