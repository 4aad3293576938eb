import { t } from 'elysia';
import { AppParams, errors } from '../../../http/schemas';
import type { Services } from '../../../services';
import { adminGroup } from '../../admin/admin.guard';

const WaitingSend = t.Object({
  messageId: t.String({ description: 'Cancel it with `DELETE /api/apps/{appId}/notifications/{messageId}`.' }),
  templateSlug: t.String(),
  nextDueAt: t.String({ format: 'date-time', description: 'When its next part goes.' }),
  lastDueAt: t.String({ format: 'date-time', description: 'When its last waiting part goes (a `sendAtLocal` goes zone by zone).' }),
  local: t.Boolean({ description: 'true: `sendAtLocal` (each device at a wall time in its zone); false: `sendAt`.' }),
  localTime: t.Union([t.String({ examples: ['2026-12-24T09:00'] }), t.Null()], { description: 'A `sendAtLocal`: the wall time each device gets it at in its zone (minutes); null for `sendAt`.' }),
});

/** The console's list of scheduled sends still waiting. */
export function scheduledSendsAdminRoutes(services: Services) {
  const { apps, notifications } = services;
  return adminGroup(services, 'Admin: releases').get(
    '/apps/:appId/scheduled-sends',
    async ({ params }) => {
      await apps.get(params.appId);
      return { scheduledSends: await notifications.waiting(params.appId) };
    },
    {
      params: AppParams,
      response: { 200: t.Object({ scheduledSends: t.Array(WaitingSend) }), ...errors(401, 404) },
      detail: { summary: 'List scheduled sends', description: 'The sends made with `sendAt` or `sendAtLocal` that have a part still waiting, by next due time (at most 1,000 parts read).' },
    },
  );
}
