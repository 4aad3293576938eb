import { t } from 'elysia';
import { AppParams, Int, PageQuery, Success, errors } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from './webhooks.events';

const EventType = t.Union(WEBHOOK_EVENT_TYPES.map((type) => t.Literal(type)));
const Events = t.Array(EventType, {
  minItems: 1,
  description: `Event types to receive; absent or null: every event. ${WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\`: ${WEBHOOK_EVENTS[type]}`).join('; ')}.`,
});
const Url = t.String({ maxLength: 2048, description: 'Where events are posted: https, and a public address (the outbound policy of provider endpoints).' });
const Description = t.String({ maxLength: 500 });
const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(type: T) => t.Union([type, t.Null()]);

const Endpoint = t.Object({
  id: t.String(),
  url: t.String(),
  description: Nullable(t.String()),
  events: Nullable(t.Array(t.String())),
  enabled: t.Boolean(),
  disabledReason: Nullable(t.String({ description: 'Set when Islet disabled the endpoint (every attempt failed for 5 days).' })),
  failingSince: Nullable(t.String({ format: 'date-time', description: 'Since when every attempt failed; null after a success.' })),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
});
const Secret = t.String({ description: 'The signing secret, `whsec_` + base64: verify `webhook-signature` with it (Standard Webhooks libraries).' });
const Attempt = t.Object({
  id: Int(),
  eventId: t.String({ description: 'The `webhook-id` header: the same on every retry of the event.' }),
  eventType: t.String(),
  attempt: Int({ description: '1 for the first post of the event to this endpoint.' }),
  at: t.String({ format: 'date-time' }),
  ok: t.Boolean(),
  responseStatus: Nullable(Int()),
  error: Nullable(t.String()),
  durationMs: Int(),
});
const WebhookParams = t.Object({ appId: t.String({ description: 'The app identifier.' }), id: t.String({ description: 'The webhook endpoint identifier.' }) });

/** Admin API of webhook endpoints (Standard Webhooks): CRUD, secret rotation, a test event, attempts. */
export function webhooksAdminRoutes(services: Services) {
  const { webhooks } = services;
  return adminGroup(services, 'Admin: webhooks')
    .get('/apps/:appId/webhooks', async ({ params }) => ({ webhooks: await webhooks.list(params.appId) }), {
      params: AppParams,
      response: { 200: t.Object({ webhooks: t.Array(Endpoint) }), ...errors(401, 404) },
      detail: { summary: 'List webhook endpoints' },
    })
    .post(
      '/apps/:appId/webhooks',
      async ({ params, body, set }) => {
        const created = await webhooks.create(params.appId, body);
        set.status = 201;
        return created;
      },
      {
        params: AppParams,
        body: t.Object(
          { url: Url, events: t.Optional(Nullable(Events)), description: t.Optional(Nullable(Description)) },
          { additionalProperties: false, examples: [{ url: 'https://backend.example.com/islet-events', events: ['delivery.failed', 'live_activity.ended'] }] },
        ),
        response: { 201: t.Composite([Endpoint, t.Object({ secret: Secret })]), ...errors(400, 401, 404, 409) },
        detail: {
          summary: 'Create a webhook endpoint',
          description:
            'Answers 201 with the endpoint and its `whsec_` secret. Events are posted as `{type, timestamp, data}` with the headers `webhook-id`, `webhook-timestamp` and ' +
            '`webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`), retried after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h; an endpoint failing for 5 days is disabled. ' +
            'Errors: 400 naming the field (a URL the outbound policy refuses, an unknown event type); 409 at 20 endpoints.',
        },
      },
    )
    .get('/apps/:appId/webhooks/:id', ({ params }) => webhooks.get(params.appId, params.id), {
      params: WebhookParams,
      response: { 200: Endpoint, ...errors(401, 404) },
      detail: { summary: 'Get a webhook endpoint' },
    })
    .patch('/apps/:appId/webhooks/:id', ({ params, body }) => webhooks.update(params.appId, params.id, body), {
      params: WebhookParams,
      body: t.Object(
        {
          url: t.Optional(Url),
          events: t.Optional(Nullable(Events)),
          description: t.Optional(Nullable(Description)),
          enabled: t.Optional(t.Boolean({ description: 'false stops sending (queued events wait); true again clears the disabled mark.' })),
        },
        { additionalProperties: false, examples: [{ enabled: true }, { events: null }] },
      ),
      response: { 200: Endpoint, ...errors(400, 401, 404) },
      detail: { summary: 'Change a webhook endpoint', description: 'Changes url, events, description or enabled; fields left out keep their value.' },
    })
    .delete(
      '/apps/:appId/webhooks/:id',
      async ({ params }) => {
        await webhooks.remove(params.appId, params.id);
        return { success: true as const };
      },
      { params: WebhookParams, response: { 200: Success, ...errors(401, 404) }, detail: { summary: 'Delete a webhook endpoint and its queue' } },
    )
    .post('/apps/:appId/webhooks/:id/secret', ({ params }) => webhooks.rotateSecret(params.appId, params.id), {
      params: WebhookParams,
      response: {
        200: t.Object({
          secret: Secret,
          previousSecretValidUntil: t.String({ format: 'date-time', description: 'Until then the previous secret signs too (a second `v1,` signature).' }),
        }),
        ...errors(401, 404),
      },
      detail: {
        summary: 'Rotate the signing secret',
        description: 'The new secret signs every attempt from now on, retries of older events included; for 24 hours the previous one signs as well, so the receiver can switch without losing events.',
      },
    })
    .post(
      '/apps/:appId/webhooks/:id/test',
      async ({ params, set }) => {
        const queued = await webhooks.test(params.appId, params.id);
        set.status = 202;
        return queued;
      },
      {
        params: WebhookParams,
        response: { 202: t.Object({ eventId: t.String({ description: 'The `webhook-id` of the test event.' }) }), ...errors(401, 404, 409) },
        detail: { summary: 'Send a test event', description: 'Queues a `webhook.test` event to this endpoint only; its attempts show as usual. 409 when the endpoint is disabled.' },
      },
    )
    .get(
      '/apps/:appId/webhooks/:id/attempts',
      ({ params, query }) => webhooks.attempts(params.appId, params.id, query.limit ?? 50, query.offset ?? 0),
      {
        params: WebhookParams,
        query: t.Object(PageQuery, { additionalProperties: true }),
        response: { 200: t.Object({ attempts: t.Array(Attempt, { description: 'Newest first.' }), total: Int() }), ...errors(400, 401, 404) },
        detail: { summary: 'List the attempts of a webhook endpoint', description: 'Every post, newest first: the event, the attempt number, the receiver’s status or the error.' },
      },
    );
}
