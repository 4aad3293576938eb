import { t } from 'elysia';
import { AppParams, Int, errors } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { usageReport } from './usage.service';

const Usage = t.Object({
  plan: t.String(),
  liveActivities: t.Boolean({
    description: 'Whether the plan lets the app start Live Activities and broadcasts. false: every start answers 403 `live activities are not available on your current plan`; minutes already used this period (on an earlier plan) still show.',
  }),
  periodStart: t.String({ format: 'date-time', description: 'Start of the billing period (calendar month, UTC).' }),
  periodEnd: t.String({ format: 'date-time' }),
  minutesUsed: t.Number({ description: 'Live activity minutes used in the period.' }),
  quota: t.Union([t.Number(), t.Null()], { description: "The plan's minutes; null = no minute limit (with `liveActivities: false`, nothing can be started at all)." }),
  overage: t.Boolean({ description: 'Whether the plan allows going over the quota.' }),
  overageMinutes: t.Number({ description: 'Minutes used beyond the quota (plans with overage).' }),
  activeActivities: Int(),
  daily: t.Array(t.Object({ date: t.String({ description: 'YYYY-MM-DD (UTC)' }), minutes: t.Number() })),
});

/** Admin API: an app's live activity minutes in the current billing period. */
export function usageAdminRoutes(services: Services) {
  return adminGroup(services, 'Admin: usage').get(
    '/apps/:appId/usage',
    async ({ params }) => usageReport(services.ctx, params.appId, (await services.apps.get(params.appId)).plan),
    {
      params: AppParams,
      response: { 200: Usage, ...errors(401, 404) },
      detail: { summary: 'Minutes used in the current billing period, against the quota, day by day' },
    },
  );
}
