import type { Db } from '../../db/sqlite/database';
import { isoTime } from '../../lib/clock';
import type { WebhookEventType } from './webhooks.events';
import { anyEnabledEndpoint, emitWebhook, subscribers, writeEvent } from './webhooks.outbox';

/**
 * The events of each cause, called where the cause is decided and inside its transaction. Each
 * looks up only what the event says, and only when an endpoint of the app listens.
 */

/** A function that emits events of one type for one app, or does nothing when nobody listens (fan-outs ask once). */
export function emitterFor(db: Db, appId: string, type: WebhookEventType, now: number): (data: Record<string, unknown>) => void {
  const endpoints = subscribers(db, appId, type);
  if (endpoints.length === 0) return () => {};
  return (data) => void writeEvent(db, appId, type, data, endpoints, now);
}

/** `live_activity.ended`, for activities an API call, the quota or iOS expiry just ended. */
export function activitiesEnded(db: Db, rows: readonly { id: string; appId: string; endUserId: string; templateSlug: string; endedAt: number | null; endReason: string | null }[], now: number): void {
  const emitters = new Map<string, (data: Record<string, unknown>) => void>();
  for (const row of rows) {
    let emit = emitters.get(row.appId);
    if (!emit) emitters.set(row.appId, (emit = emitterFor(db, row.appId, 'live_activity.ended', now)));
    emit({ activityId: row.id, endUserId: row.endUserId, templateSlug: row.templateSlug, endReason: row.endReason, endedAt: isoTime(row.endedAt ?? now) });
  }
}

interface FailedDelivery {
  id: number;
  status: string;
  reason: string | null;
  attempts: number;
}

/** `delivery.failed` for deliveries the worker gave up on, and `device.token_invalidated` for tokens a provider refused for good. */
export function deliveryOutcomes(db: Db, results: readonly FailedDelivery[], invalidatedTokenIds: readonly number[], now: number): void {
  if (invalidatedTokenIds.length === 0 && !results.some((r) => r.status === 'failed')) return;
  if (!anyEnabledEndpoint(db)) return;
  const client = db.$client;
  for (const r of results) {
    if (r.status !== 'failed') continue;
    const d = client
      .query<{ appId: string; deviceId: string; activityId: string | null; kind: string; endUserId: string | null; platform: string | null }, [number]>(
        `SELECT d.app_id AS appId, d.device_id AS deviceId, d.activity_id AS activityId, m.kind, dev.end_user_id AS endUserId, dev.platform
           FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id WHERE d.id = ?`,
      )
      .get(r.id);
    if (!d) continue;
    emitWebhook(db, d.appId, 'delivery.failed', { deliveryId: r.id, kind: d.kind, activityId: d.activityId, deviceId: d.deviceId, endUserId: d.endUserId, platform: d.platform, reason: r.reason, attempts: r.attempts }, now);
  }
  for (const tokenId of invalidatedTokenIds) {
    const t = client
      .query<{ appId: string; kind: string; deviceId: string; activityId: string | null; reason: string | null; endUserId: string | null }, [number]>(
        `SELECT t.app_id AS appId, t.kind, t.device_id AS deviceId, t.activity_id AS activityId, t.invalid_reason AS reason, dev.end_user_id AS endUserId
           FROM tokens t LEFT JOIN devices dev ON dev.id = t.device_id WHERE t.id = ?`,
      )
      .get(tokenId);
    if (!t) continue;
    emitWebhook(db, t.appId, 'device.token_invalidated', { deviceId: t.deviceId, endUserId: t.endUserId, tokenKind: t.kind, activityId: t.activityId, reason: t.reason }, now);
  }
}

interface Channel {
  appId: string;
  provider: 'apns' | 'fcm';
  endpoint: string;
}

/** `channel.down`: the delivery worker found a provider endpoint unreachable; its deliveries are held. */
export function channelDown(db: Db, key: Channel, reason: string, now: number): void {
  db.$client.transaction(() => emitWebhook(db, key.appId, 'channel.down', { provider: key.provider, endpoint: key.endpoint, reason, since: isoTime(now) }, now)).immediate();
}

/** `channel.recovered`: the endpoint answered again; the deliveries held for it were released. */
export function channelRecovered(db: Db, key: Channel, at: { downSince: number; released: number }, now: number): void {
  const data = { provider: key.provider, endpoint: key.endpoint, downSince: isoTime(at.downSince), downSeconds: Math.round((now - at.downSince) / 1000), released: at.released };
  db.$client.transaction(() => emitWebhook(db, key.appId, 'channel.recovered', data, now)).immediate();
}
