import { Elysia, t } from 'elysia';
import { errors } from '../../../http/schemas';
import type { Services } from '../../../services';
import { DeviceReportBody, DeviceReportParams, deviceReportAuth } from '../opens/device-report';

/** Receipts reported by devices (issue 48): the notification reached the phone. */
export function receiptsRoutes(services: Services) {
  const { auth, receipts } = services;
  return new Elysia({ detail: { tags: ['Notifications'] } }).post(
    '/api/apps/:appId/notifications/:messageId/received',
    ({ params, body }) => receipts.report(params.appId, params.messageId, body),
    {
      transform: deviceReportAuth(auth),
      params: DeviceReportParams,
      body: DeviceReportBody,
      response: {
        200: t.Object({
          success: t.Literal(true),
          counted: t.Boolean({ description: 'False when this device had reported the message received already (counted once).' }),
        }),
        ...errors(400, 401, 404, 429),
      },
      detail: {
        summary: 'Report a notification received',
        description:
          "Sent by the device when a notification reaches it (iOS: the app's notification service extension; Android: `FirebaseMessagingService.onMessageReceived`): counted once per device in the message status and list (`received`). " +
          '"sent" says APNs or FCM took the push; `received` says it reached the phone. ' +
          'Authenticated by `X-Service-Key` or `X-End-User-Signature` = hex(HMAC-SHA256(Signing Secret, endUserId)), as an open report. ' +
          "404 `message not found` for an unknown id or another app's; 404 `message was not sent to this device` when no delivery of it went to that device, the device is not that end user's, or it was deleted.",
        security: [{ serviceKey: [] }, { endUserSignature: [] }],
      },
    },
  );
}
