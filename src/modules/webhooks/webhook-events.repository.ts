import { isoTime } from '../../lib/clock';
import { newId } from '../../lib/ids';

import type { Sql } from '../../db/sql/sql';
import { statement } from '../../db/sql/statement';
import { repository } from '../../db/sql/repository';
import type { WebhookEventInput } from './delivery-events';
import type { WebhookEventType } from './webhooks.events';

/** The first key of hadEventSince's advisory locks (two int4 keys: apart from the bigint ones). 0x69736c71 = "islq". */
const QUOTA_EVENT_LOCK_CLASS = 0x69736c71;

const enabled = statement<{ id: string; events: string | null }>((d) => `SELECT id, events FROM webhook_endpoints WHERE app_id = $1 AND enabled = ${d.bool(true)}`);
const insertEvent = statement('INSERT INTO webhook_events (id, app_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)');
const insertDelivery = statement(
  `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES ($1, $2, 'pending', 0, $3, $3, $3)`,
);
// PostgreSQL only: held to the end of the write, so a second writer asking about the same app and
// type (two scheduler leaders during a takeover) waits, then sees the event the first one emitted.
// SQLite has one writer.
const quotaEventLock = statement(`SELECT pg_advisory_xact_lock(${QUOTA_EVENT_LOCK_CLASS}, hashtext($1 || ' ' || $2))`);
const since = statement('SELECT 1 AS one FROM webhook_events WHERE app_id = $1 AND type = $2 AND created_at >= $3 LIMIT 1');
const withEndpoints = statement<{ id: string; plan: string }>(
  (d) => `SELECT DISTINCT a.id, a.plan FROM apps a JOIN webhook_endpoints w ON w.app_id = a.id AND w.enabled = ${d.bool(true)}`,
);
const anyEnabled = statement((d) => `SELECT 1 AS one FROM webhook_endpoints WHERE enabled = ${d.bool(true)} LIMIT 1`);

/**
 * Webhook events and their deliveries, written in the transaction of the event's cause (`sql` is
 * the unit of work's, or the delivery repository's while it records outcomes).
 */
export const webhookEventsRepository = repository((sql: Sql) => {
  const events = {
    /** The enabled endpoints of the app that listen to the type. */
    subscribers: async (appId: string, type: WebhookEventType): Promise<string[]> =>
      (await sql.all(enabled, [appId])).filter((e) => e.events === null || (JSON.parse(e.events) as string[]).includes(type)).map((e) => e.id),

    /** Writes an event and its deliveries, due now, to the given endpoints (the test event goes to one). Returns its id. */
    async writeEvent(appId: string, type: string, data: Record<string, unknown>, endpointIds: readonly string[], now: number): Promise<string> {
      const id = newId('msg', now);
      await sql.run(insertEvent, [id, appId, type, JSON.stringify({ type, timestamp: isoTime(now), data }), now]);
      // An app has a few endpoints: one row each.
      for (const endpointId of endpointIds) await sql.run(insertDelivery, [id, endpointId, now]);
      return id;
    },

    /**
     * Writes one event for every enabled endpoint of the app subscribed to its type; an app without
     * such endpoints writes nothing. Returns the event id (`webhook-id`), or undefined.
     */
    async emit(appId: string, type: WebhookEventType, data: Record<string, unknown>, now: number): Promise<string | undefined> {
      const endpoints = await events.subscribers(appId, type);
      return endpoints.length === 0 ? undefined : events.writeEvent(appId, type, data, endpoints, now);
    },

    /**
     * Whether the app already had an event of this type since `since` (quota events: once a period).
     * Asked in a write, the answer holds until that write commits: another write asking the same
     * waits for it (PostgreSQL: a transaction-level advisory lock; SQLite has one writer).
     */
    async hadEventSince(appId: string, type: WebhookEventType, from: number): Promise<boolean> {
      if (sql.dialect.name === 'postgres') await sql.run(quotaEventLock, [appId, type]);
      return (await sql.one(since, [appId, type, from])) !== undefined;
    },

    /** Apps with at least one enabled endpoint, and their plans (the quota events look only at these). */
    appsWithEndpoints: (): Promise<{ id: string; plan: string }[]> => sql.all(withEndpoints),

    /**
     * Writes events built by their module (delivery.failed, device.token_invalidated: delivery-events.ts),
     * each to the enabled endpoints of its app that listen to its type. Looks no further when no
     * endpoint is enabled at all (the delivery worker's hot path).
     */
    async emitAll(list: readonly WebhookEventInput[], now: number): Promise<void> {
      // Lets the delivery worker's hot path skip its lookups at once.
      if (list.length === 0 || (await sql.one(anyEnabled)) === undefined) return;
      for (const e of list) await events.emit(e.appId, e.type, e.data, now);
    },
  };
  return events;
});

export type WebhookEventsRepository = ReturnType<typeof webhookEventsRepository>;
