import { Elysia, t, type Static } from 'elysia';
import { errors } from '../../../http/schemas';
import { HttpError } from '../../../lib/errors';
import type { Services } from '../../../services';
import { END_USER_SIGNATURE_HEADER, SERVICE_KEY_HEADER } from '../../apps/service-auth';

/** What a device reports of a notification it got: an open (opens.routes.ts) or a receipt (receipts.routes.ts). */
export const DeviceReportBody = t.Object(
  {
    endUserId: t.String({ minLength: 1, maxLength: 256, description: 'The end user the device belongs to (the one `X-End-User-Signature` signs).' }),
    deviceId: t.String({ minLength: 1, maxLength: 256, description: 'The device id its registration answered (`device.id`).' }),
  },
  { additionalProperties: false },
);

export const DeviceReportParams = t.Object({
  appId: t.String({ description: 'The app identifier.' }),
  messageId: t.String({ description: 'The `isletMessageId` of the payload the device received.' }),
});

/**
 * The `transform` of a device's report: the App Secret (`X-Service-Key`) or the end user's
 * `X-End-User-Signature` over `endUserId`. Authentication runs before validation, as at device
 * registration: an unauthenticated caller learns nothing.
 */
export const deviceReportAuth =
  (auth: Services['auth']) =>
  async ({ params, body, request }: { params: Record<string, string | undefined>; body: unknown; request: Request }): Promise<void> => {
    const endUserId = (body as { endUserId?: unknown } | undefined)?.endUserId;
    // A signature signs endUserId: without it there is nothing to check the signature against.
    if (typeof endUserId !== 'string' && request.headers.has(END_USER_SIGNATURE_HEADER) && !request.headers.has(SERVICE_KEY_HEADER)) throw new HttpError(400, 'endUserId is required');
    await auth.appOrEndUser(request, params.appId ?? '', typeof endUserId === 'string' ? endUserId : undefined);
  };

/**
 * `POST /api/apps/{appId}/notifications/{messageId}/<what>`: a device's report of a notification
 * (`opened`, `received`), with the shared body, parameters, authentication and answers; `report`
 * counts it once per device. `description` says what the report is, before the shared parts.
 */
export function deviceReportRoute(
  auth: Services['auth'],
  what: 'opened' | 'received',
  report: (appId: string, messageId: string, body: Static<typeof DeviceReportBody>) => Promise<{ success: true; counted: boolean }>,
  doc: { summary: string; description: string; authentication?: string },
) {
  return new Elysia({ detail: { tags: ['Notifications'] } }).post(`/api/apps/:appId/notifications/:messageId/${what}`, ({ params, body }) => report(params.appId, params.messageId, body), {
    transform: deviceReportAuth(auth),
    params: DeviceReportParams,
    body: DeviceReportBody,
    response: {
      200: t.Object({
        success: t.Literal(true),
        counted: t.Boolean({ description: `False when this device had reported the message ${what} already (counted once).` }),
      }),
      ...errors(400, 401, 404, 429),
    },
    detail: {
      summary: doc.summary,
      description:
        `${doc.description} ` +
        `Authenticated by \`X-Service-Key\` or \`X-End-User-Signature\` = hex(HMAC-SHA256(Signing Secret, endUserId))${doc.authentication ?? ''}. ` +
        "404 `message not found` for an unknown id or another app's; 404 `message was not sent to this device` when no delivery of it went to that device, the device is not that end user's, or it was deleted.",
      security: [{ serviceKey: [] }, { endUserSignature: [] }],
    },
  });
}
