import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { AppParams, errors, PageQuery } from '../../../http/schemas';
import type { Services } from '../../../services';
import { Counts } from '../notifications.routes';
import { deviceReportRoute } from './device-report';

const ListedMessage = t.Object({
  messageId: t.String(),
  templateSlug: t.String(),
  releaseVersion: Type.Integer(),
  state: t.Union([t.Literal('scheduled'), t.Literal('sending'), t.Literal('sent'), t.Literal('cancelled')], {
    description:
      '`scheduled`: waiting for its time, nothing gone yet; `sending`: some parts of a `sendAtLocal` gone and others waiting, or deliveries still queued, held or sending; ' +
      '`cancelled`: a cancel stopped what had not gone and nothing waits; `sent`: nothing left to go (`deliveries` tells what became of each).',
  }),
  createdAt: t.String({ format: 'date-time', description: 'When the send was made (for a scheduled send: when it was scheduled, not when it goes).' }),
  scheduledFor: t.Union([t.String({ format: 'date-time' }), t.Null()], {
    description: 'When a scheduled send goes: its first part that reaches a device, as the message status says (`schedule.scheduledFor`). Null for a send made to go at once.',
  }),
  deliveries: Counts,
  opened: Type.Integer({ description: 'Devices that reported opening it (once each).' }),
  received: Type.Integer({ description: 'Devices that reported receiving it (`POST …/received`, once each).' }),
});

const tags = ['Notifications'];

/** Opens reported by devices, and the app's messages listed with their counts (issue 38). */
export function opensRoutes(services: Services) {
  const { auth, opens } = services;
  return new Elysia({ detail: { tags } })
    .use(
      deviceReportRoute(auth, 'opened', (appId, messageId, body) => opens.report(appId, messageId, body), {
        summary: 'Report a notification opened',
        description:
          'Sent by the device when its user opens a notification: counted once per device in the message status (`opened`), and a `notification.opened` webhook event.',
      }),
    )
    .get('/api/apps/:appId/notifications', ({ request, query }) => opens.list(auth.appOf(request).id, query.limit ?? 50, query.offset ?? 0), {
      transform: auth.requireKey,
      params: AppParams,
      query: t.Object(PageQuery),
      response: {
        200: t.Object({
          messages: t.Array(ListedMessage, { description: 'Newest first.' }),
          total: Type.Integer({ description: "All of the app's messages, scheduled ones too (retention removes old ones)." }),
        }),
        ...errors(400, 401, 429),
      },
      detail: {
        summary: 'List notifications',
        description:
          "The app's messages newest first by `createdAt` (`limit` default 50): sent at once, scheduled (`sendAt`, `sendAtLocal`) and cancelled alike, each with its `state`, its deliveries by state (as the message status counts them; a scheduled send has none until a part goes) its opens and receipts.",
        security: [{ serviceKey: [] }],
      },
    });
}
