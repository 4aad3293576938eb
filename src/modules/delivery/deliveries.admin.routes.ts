import { t } from 'elysia';
import type { Db } from '../../db/database';
import { errors, PageQuery } from '../../http/schemas';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { withSentBody } from './delivery.routing';

const STATUSES = ['pending', 'held', 'sending', 'delivered', 'failed', 'dropped', 'superseded'] as const;
const Status = t.Union([t.Literal('pending'), t.Literal('held'), t.Literal('sending'), t.Literal('delivered'), t.Literal('failed'), t.Literal('dropped'), t.Literal('superseded')]);
const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(type: T) => t.Union([type, t.Null()]);

export const DeliveryRecord = t.Object({
  id: t.Integer(),
  kind: t.Union([t.Literal('notification'), t.Literal('la_start'), t.Literal('la_update'), t.Literal('la_end')]),
  activityId: Nullable(t.String()),
  deviceId: t.String(),
  platform: Nullable(t.Union([t.Literal('ios'), t.Literal('android')])),
  provider: Nullable(t.String({ description: 'apns, fcm or simulator, once an attempt was made.' })),
  status: Status,
  attempts: t.Integer(),
  providerId: Nullable(t.String({ description: 'apns-id, FCM message name, or the simulator id.' })),
  reason: Nullable(t.String({ description: 'Why it waits, was retried, dropped or failed.' })),
  sentPayload: t.Optional(t.Unknown({ description: 'The last request sent (method, url, headers, body), or what the simulator would have sent.' })),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  nextAttemptAt: t.String({ format: 'date-time' }),
});

const DeliveryList = t.Object({ deliveries: t.Array(DeliveryRecord), total: t.Integer() });

interface DeliveryRow {
  id: number;
  kind: 'notification' | 'la_start' | 'la_update' | 'la_end';
  activityId: string | null;
  deviceId: string;
  platform: 'ios' | 'android' | null;
  provider: string | null;
  status: (typeof STATUSES)[number];
  attempts: number;
  providerId: string | null;
  reason: string | null;
  sentPayload: string | null;
  /** The message's recorded body, for a sentPayload that leaves it out. */
  messageBody: string | null;
  createdAt: number;
  updatedAt: number;
  nextAttemptAt: number;
}

/** Newest first; `total` counts every match, not the page. */
function deliveriesQueries(db: Db) {
  const columns = `d.id, m.kind, d.activity_id AS activityId, d.device_id AS deviceId, dev.platform, d.provider, d.status, d.attempts,
    d.provider_id AS providerId, d.reason, d.sent_payload AS sentPayload, m.sent_body AS messageBody, d.created_at AS createdAt, d.updated_at AS updatedAt,
    d.next_attempt_at AS nextAttemptAt
    FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN devices dev ON dev.id = d.device_id`;
  const byApp = db.$client.query<DeliveryRow, [string, string | null, number, number]>(
    `SELECT ${columns} WHERE d.app_id = ?1 AND (?2 IS NULL OR d.status = ?2) ORDER BY d.id DESC LIMIT ?3 OFFSET ?4`,
  );
  const countByApp = db.$client.query<{ n: number }, [string, string | null]>(
    `SELECT count(*) AS n FROM deliveries d WHERE d.app_id = ?1 AND (?2 IS NULL OR d.status = ?2)`,
  );
  const byActivity = db.$client.query<DeliveryRow, [string, string, number, number]>(
    `SELECT ${columns} WHERE d.activity_id = ?2 AND d.app_id = ?1 ORDER BY d.id DESC LIMIT ?3 OFFSET ?4`,
  );
  const countByActivity = db.$client.query<{ n: number }, [string, string]>(
    `SELECT count(*) AS n FROM deliveries d WHERE d.activity_id = ?2 AND d.app_id = ?1`,
  );
  const activity = db.$client.query<{ id: string }, [string, string]>(`SELECT id FROM activities WHERE app_id = ? AND id = ?`);
  return {
    byApp: (appId: string, status: string | undefined, limit: number, offset: number) => ({
      rows: byApp.all(appId, status ?? null, limit, offset),
      total: countByApp.get(appId, status ?? null)?.n ?? 0,
    }),
    byActivity: (appId: string, activityId: string, limit: number, offset: number) => ({
      rows: byActivity.all(appId, activityId, limit, offset),
      total: countByActivity.get(appId, activityId)?.n ?? 0,
    }),
    activityExists: (appId: string, activityId: string) => activity.get(appId, activityId) !== null,
  };
}

function deliveryView(row: DeliveryRow) {
  const { sentPayload, messageBody, createdAt, updatedAt, nextAttemptAt, ...rest } = row;
  return {
    ...rest,
    ...(sentPayload ? { sentPayload: withSentBody(sentPayload, messageBody) } : {}),
    createdAt: isoTime(createdAt),
    updatedAt: isoTime(updatedAt),
    nextAttemptAt: isoTime(nextAttemptAt),
  };
}

/** Admin visibility of the outbox: an app's deliveries, and those of one live activity. */
export function deliveriesAdminRoutes(services: Services) {
  const { apps, ctx } = services;
  const queries = deliveriesQueries(ctx.db);
  return adminGroup(services, 'Admin: deliveries')
    .get(
      '/apps/:appId/deliveries',
      ({ params, query }) => {
        apps.get(params.appId);
        const { rows, total } = queries.byApp(params.appId, query.status, query.limit ?? 50, query.offset ?? 0);
        return { deliveries: rows.map(deliveryView), total };
      },
      {
        params: t.Object({ appId: t.String() }),
        query: t.Object({ status: t.Optional(Status), ...PageQuery }),
        response: { 200: DeliveryList, ...errors(400, 401, 404) },
        detail: { summary: "List an app's deliveries", description: 'Newest first, optionally of one status.' },
      },
    )
    .get(
      '/apps/:appId/live-activities/:id/deliveries',
      ({ params, query }) => {
        apps.get(params.appId);
        if (!queries.activityExists(params.appId, params.id)) throw new HttpError(404, 'live activity not found');
        const { rows, total } = queries.byActivity(params.appId, params.id, query.limit ?? 50, query.offset ?? 0);
        return { deliveries: rows.map(deliveryView), total };
      },
      {
        params: t.Object({ appId: t.String(), id: t.String() }),
        query: t.Object(PageQuery),
        response: { 200: DeliveryList, ...errors(400, 401, 404) },
        detail: { summary: "List a live activity's deliveries", description: 'Newest first: start, updates and end, one per device.' },
      },
    );
}
