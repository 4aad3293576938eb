import type { Tx } from '../../db/store';
import { isoTime } from '../../lib/clock';
import type { WebhookEventType } from './webhooks.events';
import { webhookEventsRepository } from './webhook-events.repository';

/**
 * The events of each cause, written in the transaction `tx` where the cause is decided, so an
 * event exists exactly when its cause was committed. Each looks up only what the event says, and
 * only when an endpoint of the app listens. (`delivery.failed` and `device.token_invalidated`:
 * delivery-events.ts, decided with the outcome and written by `tx.webhookEvents.emitAll`.)
 */

/** A function that emits events of one type for one app, or does nothing when nobody listens (fan-outs ask once). */
export async function emitterFor(tx: Tx, appId: string, type: WebhookEventType, now: number): Promise<(data: Record<string, unknown>) => Promise<unknown>> {
  const endpoints = await webhookEventsRepository(tx).subscribers(appId, type);
  if (endpoints.length === 0) return async () => {};
  return (data) => webhookEventsRepository(tx).writeEvent(appId, type, data, endpoints, now);
}

/** `live_activity.ended`, for activities an API call, the quota or iOS expiry just ended. */
export async function activitiesEnded(
  tx: Tx,
  rows: readonly { id: string; appId: string; endUserId: string; templateSlug: string; endedAt: number | null; endReason: string | null }[],
  now: number,
): Promise<void> {
  const emitters = new Map<string, (data: Record<string, unknown>) => Promise<unknown>>();
  for (const row of rows) {
    let emit = emitters.get(row.appId);
    if (!emit) emitters.set(row.appId, (emit = await emitterFor(tx, row.appId, 'live_activity.ended', now)));
    await emit({ activityId: row.id, endUserId: row.endUserId, templateSlug: row.templateSlug, endReason: row.endReason, endedAt: isoTime(row.endedAt ?? now) });
  }
}

interface Channel {
  appId: string;
  provider: 'apns' | 'fcm' | 'webpush';
  endpoint: string;
}

/** `channel.down`: the delivery worker found a provider endpoint unreachable; its deliveries are held. */
export async function channelDown(tx: Tx, key: Channel, reason: string, now: number): Promise<void> {
  await webhookEventsRepository(tx).emit(key.appId, 'channel.down', { provider: key.provider, endpoint: key.endpoint, reason, since: isoTime(now) }, now);
}

/** `channel.recovered`: the endpoint answered again; the deliveries held for it were released. */
export async function channelRecovered(tx: Tx, key: Channel, at: { downSince: number; released: number }, now: number): Promise<void> {
  const data = { provider: key.provider, endpoint: key.endpoint, downSince: isoTime(at.downSince), downSeconds: Math.round((now - at.downSince) / 1000), released: at.released };
  await webhookEventsRepository(tx).emit(key.appId, 'channel.recovered', data, now);
}
