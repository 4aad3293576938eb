/**
 * The delivery states as the API names them, in the message status, the message list and the
 * admin deliveries alike: the outbox's `pending` is `queued` (waiting to go) and its `delivered`
 * is `sent` (the provider accepted it); the others keep their names.
 */
export const DELIVERY_STATE_NAMES = {
  pending: 'queued',
  held: 'held',
  sending: 'sending',
  delivered: 'sent',
  failed: 'failed',
  dropped: 'dropped',
  superseded: 'superseded',
} as const;

export type OutboxStatus = keyof typeof DELIVERY_STATE_NAMES;
export type DeliveryState = (typeof DELIVERY_STATE_NAMES)[OutboxStatus];

const OUTBOX_OF = Object.fromEntries(Object.entries(DELIVERY_STATE_NAMES).map(([outbox, name]) => [name, outbox])) as Record<DeliveryState, OutboxStatus>;

/**
 * The outbox status a filter names: an API name, or the outbox's own (`pending`, `delivered`),
 * which the deliveries filter took before and still accepts.
 * @example outboxStatusOf('sent') // 'delivered'
 */
export const outboxStatusOf = (name: DeliveryState | OutboxStatus): OutboxStatus => (name in OUTBOX_OF ? OUTBOX_OF[name as DeliveryState] : (name as OutboxStatus));
