import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { AppParams, errors } from '../../http/schemas';
import type { Services } from '../../services';

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
    testReleaseVersion: t.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Use the template from this release version instead of the live release. That release must be in Testing status. Delivery goes to testers.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The public send endpoint (spec endpoint 5). */
export function notificationsRoutes(services: Services) {
  const { auth, notifications } = services;
  return new Elysia({ detail: { tags: ['Notifications'] } }).post(
    '/api/apps/:appId/notifications/send',
    ({ request, body }) => notifications.send(auth.appOf(request).id, body),
    {
      // Authenticates before the body is validated: a caller without the header always gets 401.
      transform: auth.requireKey,
      params: AppParams,
      body: SendBody,
      response: {
        200: t.Object({ messageCount: Type.Integer({ description: 'The number of notifications queued for delivery (one per device).' }) }),
        ...errors(400, 401, 404, 413, 422, 429),
      },
      detail: {
        summary: 'Send a notification',
        description:
          'Sends a push notification from a notification template, identified by its slug, to end users of the app. ' +
          'Placeholders `{{name}}` are filled from `variables`. The response confirms queuing, not delivery. ' +
          'Errors: 401 `X-Service-Key header is required`; 404 `notification template not found`; 422 `app has no live release`; ' +
          'with `testReleaseVersion`: 404 `release not found`, 422 `release is not in Testing status`; 400 `payload exceeds 4096 bytes`.',
        security: [{ serviceKey: [] }],
      },
    },
  );
}
