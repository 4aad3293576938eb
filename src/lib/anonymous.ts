/**
 * What an erased end user's rows say where the person's id was (devices.end_user_id,
 * activities.end_user_id, deliveries.device_id): '' in storage, where those columns are NOT NULL
 * and indexed (the erasure's and the pruning's statements find the leftovers by it). Every view
 * (admin and public API, webhook events) shows it as `null`: one convention for an anonymous row.
 */
export const ANONYMOUS = '';

/** A stored id as the API shows it: `null` for an erased end user's (ANONYMOUS) or a missing one. */
export function shownId(id: string | null | undefined): string | null {
  return id === undefined || id === null || id === ANONYMOUS ? null : id;
}
