import { t } from 'elysia';
import { errors, Int, IntegerParam, PageQuery } from '../../../http/schemas';
import { shownId } from '../../../lib/anonymous';
import { isoTime } from '../../../lib/clock';
import { HttpError } from '../../../lib/errors';
import type { Services } from '../../../services';
import { adminGroup } from '../../admin/admin.guard';
import { parseDate } from '../../../http/dates';
import type { AttemptRow, DeliveryFilter, DeliveryRow, LedgerRow } from './delivery-history.types';
import { withSentBody } from '../worker/delivery.routing';
import { deliveryHistoryRepository } from './delivery-history.repository';
import { DELIVERY_STATE_NAMES, outboxStatusOf } from '../delivery-states';

// Written out: a mapped union loses its literal types, and t.UnionEnum in a query gets its first value as a default.
const STATES = [
  t.Literal('queued'),
  t.Literal('held'),
  t.Literal('sending'),
  t.Literal('sent'),
  t.Literal('failed'),
  t.Literal('dropped'),
  t.Literal('superseded'),
] as const;
const Status = t.Union([...STATES], {
  description: 'queued (waiting to go), held, sending, sent (the provider accepted it), failed, dropped or superseded: the names of the message status.',
});
const StatusFilter = t.Union([...STATES, t.Literal('pending'), t.Literal('delivered')], {
  description: 'Only deliveries in this state (the names of the delivery record and the message status); `pending` and `delivered`, the names taken before, are still accepted for `queued` and `sent`.',
});
const Kind = t.Union([t.Literal('notification'), t.Literal('la_start'), t.Literal('la_update'), t.Literal('la_end'), t.Literal('widgets_reload'), t.Literal('controls_reload')]);
const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(type: T) => t.Union([type, t.Null()]);
const Time = t.String({ format: 'date-time' });

export const DeliveryRecord = t.Object({
  id: Int(),
  kind: Kind,
  activityId: Nullable(t.String()),
  deviceId: Nullable(t.String({ description: 'The device; null once its end user was erased.' })),
  endUserId: Nullable(t.String({ description: "The device's end user; null once the device was deleted or its end user erased." })),
  templateSlug: Nullable(t.String({ description: 'The template of the notification or Live Activity.' })),
  tokenId: Nullable(Int({ description: 'The token ledger entry the delivery goes to; null while unknown (held for an activity token).' })),
  platform: Nullable(t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('web')])),
  provider: Nullable(t.String({ description: 'apns, fcm, webpush or simulator, once an attempt was made.' })),
  status: Status,
  attempts: Int(),
  providerId: Nullable(t.String({ description: 'apns-id, FCM message name, or the simulator id.' })),
  reason: Nullable(t.String({ description: 'Why it waits, was retried, dropped or failed.' })),
  sentPayload: t.Optional(t.Unknown({ description: 'The last request sent (method, url, headers, body), or what the simulator would have sent.' })),
  createdAt: Time,
  updatedAt: Time,
  nextAttemptAt: Time,
});

const DeliveryList = t.Object({ deliveries: t.Array(DeliveryRecord), total: Int() });

const DeliveryDetail = t.Composite([
  DeliveryRecord,
  t.Object({
    content: t.Unknown({ description: 'What was queued, before it was shaped for a provider: the rendered notification or the activity event.' }),
    earlierAttempts: t.Array(
      t.Object({ attempt: Int(), at: Time, provider: Nullable(t.String()), providerId: Nullable(t.String()), reason: Nullable(t.String()) }),
      { description: 'Attempts answered with a retry, oldest first. The last attempt is the delivery itself (status, reason, sentPayload).' },
    ),
    token: Nullable(
      t.Object(
        {
          id: Int(),
          kind: t.String({ description: 'apns_device, apns_push_to_start, apns_activity, fcm_registration or webpush_subscription.' }),
          state: t.Union([t.Literal('active'), t.Literal('invalid')]),
          environment: Nullable(t.String()),
          invalidReason: Nullable(t.String()),
          invalidatedAt: Nullable(Time),
          reportedAt: Time,
          createdAt: Time,
          activityId: Nullable(t.String()),
        },
        { description: 'The token ledger entry the delivery went to (its value is never shown).' },
      ),
    ),
  }),
]);

const ListQuery = t.Object({
  status: t.Optional(StatusFilter),
  messageId: t.Optional(t.String({ maxLength: 256, description: 'Only deliveries of this notification (the `messageId` a send answered), every language of it.' })),
  kind: t.Optional(Kind),
  endUserId: t.Optional(t.String({ maxLength: 256, description: 'Only deliveries to the devices of this end user.', examples: ['demo-user'] })),
  deviceId: t.Optional(t.String({ maxLength: 256, description: 'Only deliveries to this device.' })),
  activityId: t.Optional(t.String({ maxLength: 256, description: 'Only deliveries of this Live Activity.' })),
  templateSlug: t.Optional(t.String({ maxLength: 256, description: 'Only deliveries of this template (notification or Live Activity).' })),
  reason: t.Optional(t.String({ maxLength: 256, description: 'Only deliveries whose reason contains this text (case-insensitive).' })),
  since: t.Optional(t.String({ maxLength: 64, description: 'Only deliveries queued at or after this ISO 8601 date-time or Unix time in seconds.', examples: ['2026-11-23T00:00:00Z'] })),
  until: t.Optional(t.String({ maxLength: 64, description: 'Only deliveries queued before this ISO 8601 date-time or Unix time in seconds.' })),
  ...PageQuery,
});

function deliveryView(row: DeliveryRow) {
  const { sentPayload, messageBody, createdAt, updatedAt, nextAttemptAt, deviceId, endUserId, ...rest } = row;
  return {
    ...rest,
    deviceId: shownId(deviceId),
    endUserId: shownId(endUserId),
    status: DELIVERY_STATE_NAMES[rest.status],
    ...(sentPayload ? { sentPayload: withSentBody(sentPayload, messageBody) } : {}),
    createdAt: isoTime(createdAt),
    updatedAt: isoTime(updatedAt),
    nextAttemptAt: isoTime(nextAttemptAt),
  };
}

const attemptView = (a: AttemptRow) => ({ ...a, at: isoTime(a.at) });
const ledgerView = (l: LedgerRow) => ({
  ...l,
  invalidatedAt: l.invalidatedAt === null ? null : isoTime(l.invalidatedAt),
  reportedAt: isoTime(l.reportedAt),
  createdAt: isoTime(l.createdAt),
});

/** A query's date: ISO 8601, or Unix seconds in digits (`0` is 1970-01-01T00:00:00Z). */
const queryDate = (value: string, name: string) => parseDate(/^[0-9]{1,12}$/.test(value) ? Number(value) : value, name);

/** The query's filters, dates as ms (400 naming the parameter when not a date). */
function filterOf(query: typeof ListQuery.static): DeliveryFilter {
  const { limit: _limit, offset: _offset, since, until, ...rest } = query;
  const { status, ...others } = rest;
  const filter: DeliveryFilter = Object.fromEntries(Object.entries(others).filter(([, v]) => v !== undefined && v !== ''));
  if (status !== undefined) filter.status = outboxStatusOf(status);
  if (since !== undefined && since !== '') filter.since = queryDate(since, 'since');
  if (until !== undefined && until !== '') filter.until = queryDate(until, 'until');
  return filter;
}

/** Admin visibility of the outbox: an app's deliveries (searchable), one delivery in full, and those of one live activity. */
export function deliveriesAdminRoutes(services: Services) {
  const { apps, ctx } = services;
  const history = deliveryHistoryRepository(ctx.db.sql);
  return adminGroup(services, 'Admin: deliveries')
    .get(
      '/apps/:appId/deliveries',
      async ({ params, query }) => {
        await apps.get(params.appId);
        const { rows, total } = await history.search(params.appId, filterOf(query), query.limit ?? 50, query.offset ?? 0);
        return { deliveries: rows.map(deliveryView), total };
      },
      {
        params: t.Object({ appId: t.String({ examples: ['demo'] }) }),
        query: ListQuery,
        response: { 200: DeliveryList, ...errors(400, 401, 404) },
        detail: {
          summary: "Search an app's deliveries",
          description: 'Newest first. Every filter narrows (end user, device, activity, message, template, kind, status, reason text, time range); `total` counts every match. A message id of another app, or one retention removed, matches nothing.',
        },
      },
    )
    .get(
      '/apps/:appId/deliveries/:id',
      async ({ params }) => {
        await apps.get(params.appId);
        const row = await history.get(params.appId, params.id);
        if (!row) throw new HttpError(404, 'delivery not found');
        const ledger = row.tokenId === null ? undefined : await history.ledgerEntry(row.tokenId);
        const content = await history.content(row.id);
        return {
          ...deliveryView(row),
          content: content ? (JSON.parse(content) as unknown) : null,
          earlierAttempts: (await history.attempts(row.id)).map(attemptView),
          token: ledger ? ledgerView(ledger) : null,
        };
      },
      {
        params: t.Object({ appId: t.String({ examples: ['demo'] }), id: IntegerParam({ minimum: 1, examples: [1] }, 'id must be a delivery id (a positive integer)') }),
        response: { 200: DeliveryDetail, ...errors(400, 401, 404) },
        detail: { summary: 'Get one delivery', description: 'The exact request sent, each attempt, what was queued, and the token ledger entry it went to.' },
      },
    )
    .get(
      '/apps/:appId/live-activities/:id/deliveries',
      async ({ params, query }) => {
        await apps.get(params.appId);
        await services.liveActivities.get(params.appId, params.id);
        const { rows, total } = await history.search(params.appId, { activityId: params.id }, query.limit ?? 50, query.offset ?? 0);
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
