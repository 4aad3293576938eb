import { t } from 'elysia';
import { errors } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { LiveActivityRecord } from './live-activities.view';

const StringMap = t.Record(t.String(), t.String());

/** Admin API: one activity with what the public record leaves out (its data and why it ended). */
export function liveActivitiesAdminRoutes(services: Services) {
  return adminGroup(services, 'Admin: live activities').get(
    '/apps/:appId/live-activities/:id',
    ({ params }) => {
      services.apps.get(params.appId);
      return services.liveActivities.detail(params.appId, params.id);
    },
    {
      params: t.Object({ appId: t.String(), id: t.String() }),
      response: {
        200: t.Composite([
          LiveActivityRecord,
          t.Object({
            endReason: t.Union([t.Literal('api'), t.Literal('quota'), t.Literal('expired'), t.Null()], {
              description: 'Why it ended: api (DELETE), quota (minutes used up), expired (iOS 8-hour limit); null while Active.',
            }),
            attributes: StringMap,
            contentState: StringMap,
            hasPushToken: t.Boolean({ description: 'iOS: whether the device reported the activity push token.' }),
          }),
        ]),
        ...errors(401, 404),
      },
      detail: { summary: 'Get an activity with its data and end reason' },
    },
  );
}
