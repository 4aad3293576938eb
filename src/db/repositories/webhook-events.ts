import { isoTime } from '../../lib/clock';
import { newId } from '../../lib/ids';
import type { WebhookEventsRepository } from '../../modules/webhooks/webhook-events.repository';
import type { Sql } from '../sql/sql';
import { statement } from '../sql/statement';

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
export function webhookEventsRepository(sql: Sql): WebhookEventsRepository {
  const events: WebhookEventsRepository = {
    subscribers: async (appId, type) =>
      (await sql.all(enabled, [appId])).filter((e) => e.events === null || (JSON.parse(e.events) as string[]).includes(type)).map((e) => e.id),

    async writeEvent(appId, type, data, endpointIds, now) {
      const id = newId('msg', now);
      await sql.run(insertEvent, [id, appId, type, JSON.stringify({ type, timestamp: isoTime(now), data }), now]);
      // An app has a few endpoints: one row each.
      for (const endpointId of endpointIds) await sql.run(insertDelivery, [id, endpointId, now]);
      return id;
    },

    async emit(appId, type, data, now) {
      const endpoints = await events.subscribers(appId, type);
      return endpoints.length === 0 ? undefined : events.writeEvent(appId, type, data, endpoints, now);
    },

    async hadEventSince(appId, type, from) {
      if (sql.dialect.name === 'postgres') await sql.run(quotaEventLock, [appId, type]);
      return (await sql.one(since, [appId, type, from])) !== undefined;
    },

    appsWithEndpoints: () => sql.all(withEndpoints),

    async emitAll(list, now) {
      // Lets the delivery worker's hot path skip its lookups at once.
      if (list.length === 0 || (await sql.one(anyEnabled)) === undefined) return;
      for (const e of list) await events.emit(e.appId, e.type, e.data, now);
    },
  };
  return events;
}
