import { t } from 'elysia';
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
