import type { Db } from '../database';
import { promised } from '../promised';
import { isoTime } from '../../../lib/clock';
import { newId } from '../../../lib/ids';
import type { WebhookEventType } from '../../../modules/webhooks/webhooks.events';
import type { WebhookEventsRepository } from '../../../modules/webhooks/webhook-events.repository';
import type { WebhookEventInput } from '../../../modules/webhooks/delivery-events';

/**
 * The statements that write webhook events and their deliveries, in the transaction of the
 * event's cause. Exported synchronous for the delivery repository, whose outcomes (written on the
 * outbox thread's connection) emit `delivery.failed` and `device.token_invalidated`.
 */
export function webhookEventStatements(db: Db) {
  const client = db.$client;
  const enabled = client.query<{ id: string; events: string | null }, [string]>(`SELECT id, events FROM webhook_endpoints WHERE app_id = ? AND enabled = 1`);
  const insertEvent = client.query(`INSERT INTO webhook_events (id, app_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)`);
  const insertDelivery = client.query(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES (?1, ?2, 'pending', 0, ?3, ?3, ?3)`,
  );
  const since = client.query<{ one: number }, [string, string, number]>(`SELECT 1 AS one FROM webhook_events WHERE app_id = ? AND type = ? AND created_at >= ? LIMIT 1`);
  const withEndpoints = client.query<{ id: string; plan: string }, []>(
    `SELECT DISTINCT a.id, a.plan FROM apps a JOIN webhook_endpoints w ON w.app_id = a.id AND w.enabled = 1`,
  );
  const anyEnabled = client.query<{ one: number }, []>(`SELECT 1 AS one FROM webhook_endpoints WHERE enabled = 1 LIMIT 1`);

  const statements = {
    /** The enabled endpoints of the app that listen to the type. */
    subscribers(appId: string, type: WebhookEventType): string[] {
      return enabled
        .all(appId)
        .filter((e) => e.events === null || (JSON.parse(e.events) as string[]).includes(type))
        .map((e) => e.id);
    },

    /** Writes an event and its deliveries, due now, to the given endpoints (the test event goes to one). Returns its id. */
    writeEvent(appId: string, type: string, data: Record<string, unknown>, endpointIds: readonly string[], now: number): string {
      const id = newId('msg', now);
      insertEvent.run(id, appId, type, JSON.stringify({ type, timestamp: isoTime(now), data }), now);
      for (const endpointId of endpointIds) insertDelivery.run(id, endpointId, now);
      return id;
    },

    /**
     * Writes one event for every enabled endpoint of the app subscribed to its type; an app without
     * such endpoints writes nothing. Returns the event id (`webhook-id`), or undefined.
     */
    emit(appId: string, type: WebhookEventType, data: Record<string, unknown>, now: number): string | undefined {
      const endpoints = statements.subscribers(appId, type);
      return endpoints.length === 0 ? undefined : statements.writeEvent(appId, type, data, endpoints, now);
    },

    /** Whether the app already had an event of this type since `since` (quota events: once a period). */
    hadEventSince: (appId: string, type: WebhookEventType, from: number): boolean => since.get(appId, type, from) !== null,

    /** Apps with at least one enabled endpoint, and their plans (the quota events look only at these). */
    appsWithEndpoints: (): { id: string; plan: string }[] => withEndpoints.all(),

    /** Writes events built by their module (see WebhookEventsRepository.emitAll). */
    emitAll(events: readonly WebhookEventInput[], now: number): void {
      // Lets the delivery worker's hot path skip its lookups at once.
      if (events.length === 0 || anyEnabled.get() === null) return;
      for (const e of events) statements.emit(e.appId, e.type, e.data, now);
    },
  };
  return statements;
}

/** The repository over webhookEventStatements: every method returns a Promise. */
export const webhookEventsRepository = (db: Db): WebhookEventsRepository => promised(webhookEventStatements(db));
