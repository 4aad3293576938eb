import type { Services } from '../../../services';
import { deviceReportRoute } from '../opens/device-report';

/** Receipts reported by devices (issue 48): the notification reached the phone. */
export function receiptsRoutes(services: Services) {
  const { auth, receipts } = services;
  return deviceReportRoute(auth, 'received', (appId, messageId, body) => receipts.report(appId, messageId, body), {
    summary: 'Report a notification received',
    description:
      "Sent by the device when a notification reaches it (iOS: the app's notification service extension; Android: `FirebaseMessagingService.onMessageReceived`): counted once per device in the message status and list (`received`). " +
      '"sent" says APNs or FCM took the push; `received` says it reached the phone.',
    authentication: ', as an open report',
  });
}
