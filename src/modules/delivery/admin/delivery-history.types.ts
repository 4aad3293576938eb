export const DELIVERY_STATUSES = ['pending', 'held', 'sending', 'delivered', 'failed', 'dropped', 'superseded'] as const;

export const MESSAGE_KINDS = ['notification', 'la_start', 'la_update', 'la_end', 'widgets_reload', 'controls_reload'] as const;

/** What the console asks of an app's deliveries; every field narrows, none is required. */
export interface DeliveryFilter {
  status?: (typeof DELIVERY_STATUSES)[number];
  kind?: (typeof MESSAGE_KINDS)[number];
  endUserId?: string;
  deviceId?: string;
  activityId?: string;
  /** A notification's public id (`msg_…`): its deliveries in every language. */
  messageId?: string;
  templateSlug?: string;
  /** Part of the reason, case-insensitive. */
  reason?: string;
  /** Created at or after, ms. */
  since?: number;
  /** Created before, ms. */
  until?: number;
}

export interface DeliveryRow {
  id: number;
  kind: (typeof MESSAGE_KINDS)[number];
  activityId: string | null;
  deviceId: string;
  endUserId: string | null;
  templateSlug: string | null;
  tokenId: number | null;
  platform: 'ios' | 'android' | 'web' | null;
  provider: string | null;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  providerId: string | null;
  reason: string | null;
  sentPayload: string | null;
  /** The message's recorded body, for a sentPayload that leaves it out (see withSentBody). */
  messageBody: string | null;
  createdAt: number;
  updatedAt: number;
  nextAttemptAt: number;
}

export interface AttemptRow {
  attempt: number;
  at: number;
  provider: string | null;
  providerId: string | null;
  reason: string | null;
}

export interface LedgerRow {
  id: number;
  kind: string;
  state: 'active' | 'invalid';
  environment: string | null;
  invalidReason: string | null;
  invalidatedAt: number | null;
  reportedAt: number;
  createdAt: number;
  activityId: string | null;
}
