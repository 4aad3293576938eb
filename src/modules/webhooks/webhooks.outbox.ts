import type { Db } from '../../db/sqlite/database';
import { isoTime } from '../../lib/clock';
import { newId } from '../../lib/ids';
import type { WebhookEventType } from './webhooks.events';

/**
 * Writes one event for every enabled endpoint of the app subscribed to its type, with one
 * delivery each, due now. Must run inside the transaction of the event's cause, so an event
 * exists exactly when its cause was committed; an app without such endpoints writes nothing.
 * Returns the event id (`webhook-id`), or undefined when nobody listens.
 * @example db.transaction(() => { endActivity(); emitWebhook(db, appId, 'live_activity.ended', { activityId }, now); })
 */
export function emitWebhook(db: Db, appId: string, type: WebhookEventType, data: Record<string, unknown>, now: number): string | undefined {
  const endpoints = subscribers(db, appId, type);
  return endpoints.length === 0 ? undefined : writeEvent(db, appId, type, data, endpoints, now);
}

/** The enabled endpoints of the app that listen to the type. */
export function subscribers(db: Db, appId: string, type: WebhookEventType): string[] {
  return db.$client
    .query<{ id: string; events: string | null }, [string]>(`SELECT id, events FROM webhook_endpoints WHERE app_id = ? AND enabled = 1`)
    .all(appId)
    .filter((e) => e.events === null || (JSON.parse(e.events) as string[]).includes(type))
    .map((e) => e.id);
}

/** Writes an event and its deliveries to the given endpoints (the test event goes to one). */
export function writeEvent(db: Db, appId: string, type: string, data: Record<string, unknown>, endpointIds: string[], now: number): string {
  const client = db.$client;
  const id = newId('msg', now);
  const body = JSON.stringify({ type, timestamp: isoTime(now), data });
  client.query(`INSERT INTO webhook_events (id, app_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)`).run(id, appId, type, body, now);
  const delivery = client.query(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES (?1, ?2, 'pending', 0, ?3, ?3, ?3)`,
  );
  for (const endpointId of endpointIds) delivery.run(id, endpointId, now);
  return id;
}

/** Whether the app already had an event of this type since `since` (quota events: once a period). */
export function hadEventSince(db: Db, appId: string, type: WebhookEventType, since: number): boolean {
  return (
    db.$client
      .query<{ one: number }, [string, string, number]>(`SELECT 1 AS one FROM webhook_events WHERE app_id = ? AND type = ? AND created_at >= ? LIMIT 1`)
      .get(appId, type, since) !== null
  );
}

/** Apps with at least one enabled endpoint, and their plans (the quota events look only at these). */
export function appsWithEndpoints(db: Db): { id: string; plan: string }[] {
  return db.$client
    .query<{ id: string; plan: string }, []>(`SELECT DISTINCT a.id, a.plan FROM apps a JOIN webhook_endpoints w ON w.app_id = a.id AND w.enabled = 1`)
    .all();
}

/** Whether any endpoint of any app is enabled: lets the delivery worker's hot path skip its lookups at once. */
export function anyEnabledEndpoint(db: Db): boolean {
  return db.$client.query<{ one: number }, []>(`SELECT 1 AS one FROM webhook_endpoints WHERE enabled = 1 LIMIT 1`).get() !== null;
}
