import { isoTime } from '../../../lib/clock';
import { newId } from '../../../lib/ids';
import type { WebhookEventsRepository } from '../../../modules/webhooks/webhook-events.repository';
import { all, one, run, type Pg, type PgScope } from '../query';

/** The first key of hadEventSince's advisory locks (two int4 keys: apart from the bigint ones). 0x69736c71 = "islq". */
const QUOTA_EVENT_LOCK_CLASS = 0x69736c71;

/** Webhook events and their deliveries on PostgreSQL, in the transaction of their cause; `q` may be a transaction's. */
export function webhookEventStatementsPg(q: Pg): WebhookEventsRepository {
  const statements: WebhookEventsRepository = {
    subscribers: async (appId, type) =>
      (await all<{ id: string; events: string | null }>(q, 'SELECT id, events FROM webhook_endpoints WHERE app_id = $1 AND enabled', [appId]))
        .filter((e) => e.events === null || (JSON.parse(e.events) as string[]).includes(type))
        .map((e) => e.id),

    async writeEvent(appId, type, data, endpointIds, now) {
      const id = newId('msg', now);
      await run(q, 'INSERT INTO webhook_events (id, app_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)', [
        id,
        appId,
        type,
        JSON.stringify({ type, timestamp: isoTime(now), data }),
        now,
      ]);
      if (endpointIds.length > 0)
        await run(
          q,
          `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
           SELECT $1, e, 'pending', 0, $3, $3, $3 FROM unnest($2::text[]) WITH ORDINALITY AS x(e, n) ORDER BY n`,
          [id, [...endpointIds], now],
        );
      return id;
    },

    async emit(appId, type, data, now) {
      const endpoints = await statements.subscribers(appId, type);
      return endpoints.length === 0 ? undefined : statements.writeEvent(appId, type, data, endpoints, now);
    },

    async hadEventSince(appId, type, from) {
      // Held to the end of the write: a second writer asking about the same app and type (two
      // scheduler leaders during a takeover) waits, then sees the event the first one emitted.
      await run(q, `SELECT pg_advisory_xact_lock(${QUOTA_EVENT_LOCK_CLASS}, hashtext($1 || ' ' || $2))`, [appId, type]);
      return (await one(q, 'SELECT 1 AS one FROM webhook_events WHERE app_id = $1 AND type = $2 AND created_at >= $3 LIMIT 1', [appId, type, from])) !== undefined;
    },

    appsWithEndpoints: () => all<{ id: string; plan: string }>(q, 'SELECT DISTINCT a.id, a.plan FROM apps a JOIN webhook_endpoints w ON w.app_id = a.id AND w.enabled'),

    async emitAll(events, now) {
      if (events.length === 0 || (await one(q, 'SELECT 1 AS one FROM webhook_endpoints WHERE enabled LIMIT 1')) === undefined) return;
      for (const e of events) await statements.emit(e.appId, e.type, e.data, now);
    },
  };
  return statements;
}

export const webhookEventsPg = ({ q }: PgScope): WebhookEventsRepository => webhookEventStatementsPg(q);
