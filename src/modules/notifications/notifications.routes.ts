import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { AppParams, errors } from '../../http/schemas';
import type { Services } from '../../services';
import { AudienceBody, audienceFilter, requireOneTarget } from '../devices/audience';
import { THROTTLE_PER_MINUTE } from './throttle/throttle';
import { MAX_BADGE, MAX_COLLAPSE_ID_BYTES, MAX_TTL_SECONDS } from './releases/template-options';

const SendBody = t.Object(
  {
    templateSlug: t.String({ minLength: 1, description: "Slug of a notification template from the app's live release." }),
    variables: t.Optional(
      t.Record(t.String(), t.String(), {
        description: 'Values for the template placeholders. Variables that match no placeholder are ignored; placeholders without a variable render as empty strings.',
      }),
    ),
    targetUsers: t.Optional(
      t.Array(t.String({ minLength: 1 }), {
        minItems: 1,
        description: 'End user identifiers. When omitted, sends to all users connected to the app. Duplicates are merged; unknown identifiers are skipped.',
      }),
    ),
    audience: t.Optional(AudienceBody),
    testReleaseVersion: t.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Use the template from this release version instead of the live release. That release must be in Testing status. Delivery goes to testers.',
      }),
    ),
    data: t.Optional(
      t.Record(t.String(), t.String({ maxLength: 4096 }), {
        description:
          "Custom data merged over the template's (this send's values win), taken as given (no placeholders): APNs keys beside `aps`, FCM `message.data`. " +
          'Reserved keys are refused as in templates.',
      }),
    ),
    badge: t.Optional(Type.Integer({ minimum: 0, maximum: MAX_BADGE, description: "Replaces the template's badge: APNs `aps.badge`, FCM `android.notification.notification_count`. Not with a silent template." })),
    collapseId: t.Optional(
      t.String({ minLength: 1, maxLength: 256, description: `Replaces the template's collapseId: APNs \`apns-collapse-id\`, FCM \`android.collapse_key\`. At most ${MAX_COLLAPSE_ID_BYTES} bytes.` }),
    ),
    ttlSeconds: t.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_TTL_SECONDS, description: "Replaces the template's ttlSeconds: APNs `apns-expiration` (0: not stored), FCM `android.ttl`." }),
    ),
    sendAt: t.Optional(
      t.String({
        description:
          'Schedules the send: an ISO 8601 time with an offset or `Z` (`2026-12-24T09:00:00+01:00`); the whole send goes out then. At most a minute in the past, at most 30 days ahead. Not with `sendAtLocal`.',
        examples: ['2026-12-24T09:00:00+01:00'],
      }),
    ),
    sendAtLocal: t.Optional(
      t.String({
        description:
          "Schedules the send for a wall time in each device's own `timeZone` (the app's `defaultTimeZone` for a device without one): a local date-time without offset, seconds optional (`2026-12-24T09:00`). " +
          'Zones where it has passed (more than a minute ago) are skipped; a time that does not exist there (clocks going forward) is the moment of the change. Not with `sendAt`.',
        examples: ['2026-12-24T09:00'],
      }),
    ),
    throttlePerMinute: t.Optional(
      Type.Integer({
        minimum: THROTTLE_PER_MINUTE.min,
        maximum: THROTTLE_PER_MINUTE.max,
        description:
          'Spreads the deliveries evenly at this many a minute (the n-th goes 60/throttlePerMinute seconds after the one before), across every instance and through restarts. ' +
          'The answer comes at once; what waits shows as `queued` in the message status and a cancel drops it. With `sendAt`/`sendAtLocal` the spread starts when the send goes (a later part after the earlier one\'s spread ends). ' +
          "An APNs `apns-expiration` (a `ttlSeconds` set) still counts from the send: a spread longer than it reaches iPhones late or not at all.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const Counts = t.Object(
  {
    total: Type.Integer(),
    queued: Type.Integer({ description: 'Waiting to be sent (also while retrying).' }),
    held: Type.Integer({ description: "Waiting for the provider's channel (paused credentials, an endpoint down)." }),
    sending: Type.Integer({ description: 'Being sent now.' }),
    sent: Type.Integer({ description: 'Accepted by APNs or FCM (or the simulator).' }),
    failed: Type.Integer({ description: 'Refused by the provider, or out of attempts.' }),
    dropped: Type.Integer({ description: "Not delivered because the device's token is no longer valid (the provider said so, or it was invalidated before the send)." }),
    superseded: Type.Integer({ description: 'Replaced by a newer message before it went.' }),
  },
  { description: 'Deliveries (one per device) by state.' },
);

const MessageStatus = t.Object({
  messageId: t.String(),
  templateSlug: t.String(),
  releaseVersion: Type.Integer(),
  createdAt: t.String({ format: 'date-time' }),
  deliveries: Counts,
  platforms: t.Object({ ios: Counts, android: Counts, web: Counts }, { description: 'The same counts per platform (deliveries of devices deleted since are only in `deliveries`).' }),
  opened: Type.Integer({ description: 'Devices that reported opening it (`POST …/notifications/{messageId}/opened`, once each).' }),
  received: Type.Integer({ description: 'Devices that reported receiving it (`POST …/notifications/{messageId}/received`, once each): it reached the phone, not only APNs or FCM.' }),
  schedule: t.Optional(
    t.Object(
      {
        scheduledFor: t.String({ format: 'date-time', description: 'When its first part that reaches a device is due (else its first part).' }),
        scheduled: Type.Integer({ description: 'Deliveries waiting for their time: the devices the parts not sent yet would reach now.' }),
        cancelled: Type.Integer({ description: 'Deliveries cancelled: the devices the cancelled parts would have reached when cancelled.' }),
        parts: t.Array(
          t.Object({
            dueAt: t.String({ format: 'date-time' }),
            status: t.Union([t.Literal('scheduled'), t.Literal('sent'), t.Literal('cancelled'), t.Literal('expired'), t.Literal('failed')], {
              description:
                'expired: the server came back after the part was due by more than its ttlSeconds (at least a minute), so it was not sent. failed: it could not be rendered when due (the server logs why).',
            }),
            deliveries: Type.Integer({ description: 'Queued when it went; scheduled: devices it would reach now; cancelled: devices it would have reached.' }),
            zones: t.Union([t.Array(t.String()), t.Null()], { description: 'The time zones of a `sendAtLocal` part; null for `sendAt`.' }),
          }),
          { description: 'The parts that reach (or reached) at least one device, by due time: one for `sendAt`, one per distinct UTC instant for `sendAtLocal`.' },
        ),
      },
      { description: 'Only for a scheduled send (`sendAt`, `sendAtLocal`).' },
    ),
  ),
});

/** The public send endpoint (spec endpoint 5). */
export function notificationsRoutes(services: Services) {
  const { auth, notifications } = services;
  return new Elysia({ detail: { tags: ['Notifications'] } })
    .get('/api/apps/:appId/notifications/:messageId', ({ request, params }) => notifications.status(auth.appOf(request).id, params.messageId), {
      transform: auth.requireKey,
      params: t.Object({ appId: t.String({ description: 'The app identifier.' }), messageId: t.String({ description: 'The `messageId` a send answered.' }) }),
      response: { 200: MessageStatus, ...errors(401, 404, 429) },
      detail: {
        summary: 'Follow a sent notification',
        description: "The template, release and creation time of a message a send queued, and what became of its deliveries. 404 `message not found` for an unknown id or another app's.",
        security: [{ serviceKey: [] }],
      },
    })
    .delete('/api/apps/:appId/notifications/:messageId', ({ request, params }) => notifications.cancel(auth.appOf(request).id, params.messageId), {
      transform: auth.requireKey,
      params: t.Object({ appId: t.String({ description: 'The app identifier.' }), messageId: t.String({ description: 'The `messageId` a scheduled send answered.' }) }),
      response: {
        200: t.Object({
          messageId: t.String(),
          cancelled: Type.Integer({ description: 'Deliveries cancelled: the devices the parts not sent yet would have reached now, plus the queued deliveries dropped.' }),
        }),
        ...errors(401, 404, 409, 429),
      },
      detail: {
        summary: 'Cancel a send',
        description:
          'Cancels what of a send has not gone: the parts of a scheduled send (`sendAt`, `sendAtLocal`) not due yet, and the deliveries still queued or held (they become `dropped`, reason `cancelled`); one being sent that moment goes on. ' +
          "409 when nothing was left to cancel; 404 `message not found` for an unknown id or another app's.",
        security: [{ serviceKey: [] }],
      },
    })
    .post(
    '/api/apps/:appId/notifications/send',
    ({ request, body }) => {
      requireOneTarget(body);
      return notifications.send(auth.appOf(request).id, { ...body, audience: body.audience && audienceFilter(body.audience) });
    },
    {
      // Authenticates before the body is validated: a caller without the header always gets 401.
      transform: auth.requireKey,
      params: AppParams,
      body: SendBody,
      response: {
        200: t.Object({
          messageCount: Type.Integer({
            description: 'The number of notifications queued for delivery (one per device). For a scheduled send: the devices it would reach now (who receives it is decided when it goes out).',
          }),
          messageId: t.Union([t.String(), t.Null()], {
            description: 'The id to follow the message by (`GET …/notifications/{messageId}`), also in the payload a device receives (`isletMessageId`). Null when nothing was queued.',
          }),
          scheduledFor: t.Optional(t.String({ format: 'date-time', description: "A scheduled send: when it goes out (`sendAtLocal`: its earliest part in a zone one of the app's devices is in)." })),
        }),
        ...errors(400, 401, 404, 413, 422, 429),
      },
      detail: {
        summary: 'Send a notification',
        description:
          'Sends a push notification from a notification template, identified by its slug, to end users of the app. ' +
          'Placeholders `{{name}}` are filled from `variables`. A template with `localizations` reaches each device in the best match for its `locale` (exact tag, else its language, else the template\'s own text). ' +
          'The response confirms queuing, not delivery. ' +
          'Errors: 401 `X-Service-Key header is required`; 404 `notification template not found`; 422 `app has no live release`; ' +
          'with `testReleaseVersion`: 404 `release not found`, 422 `release is not in Testing status`; 400 `payload exceeds 4096 bytes: N bytes once rendered`, ' +
          '400 `audience and targetUsers cannot be given together`; 400 naming a reserved `data` key, a `collapseId` over 64 bytes or an `image` that is not an https URL once rendered. Nothing is queued for an invalid send. ' +
          'With `sendAt` or `sendAtLocal` the send is checked now and goes out at its time (template and release fixed now, recipients decided then); ' +
          '400 names a malformed time, one more than a minute in the past or more than 30 days ahead, or both given.',
        security: [{ serviceKey: [] }],
      },
    },
  );
}
