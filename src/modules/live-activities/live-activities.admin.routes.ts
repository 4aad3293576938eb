import { t } from 'elysia';
import { errors } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { LiveActivityRecord } from './live-activities.view';

/** Strings for a built-in template; typed values for an app-defined one. */
const Values = t.Record(t.String(), t.Unknown());

const Instance = t.Object(
  {
    deviceId: t.String({ description: 'The device (`dev_…`) the activity was started on.' }),
    platform: t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('web')]),
    state: t.Union([t.Literal('live'), t.Literal('ended')], { description: 'ended: the activity ended, or (iOS) this instance reached the 8-hour limit.' }),
    reportedState: t.Optional(
      t.Union([t.Literal('active'), t.Literal('dismissed'), t.Literal('ended')], {
        description: 'What the device’s app last reported (`POST …/live-activities/{id}/state`); dismissed or ended: it gets no more pushes. Absent: nothing reported.',
      }),
    ),
    startedAt: t.String({ format: 'date-time' }),
    endedAt: t.Optional(t.String({ format: 'date-time' })),
    tokenState: t.Union([t.Literal('active'), t.Literal('invalid'), t.Literal('waiting')], {
      description: 'iOS: the instance’s update token (waiting: not reported yet; updates are held). Android: the device’s registration token.',
    }),
    tokenInvalidReason: t.Optional(t.String({ description: 'Why the provider refused the token.' })),
    lastDelivery: t.Union([
      t.Object({ status: t.String(), reason: t.Union([t.String(), t.Null()]), at: t.String({ format: 'date-time' }) }),
      t.Null(),
    ]),
  },
  { description: 'One device the activity runs on.' },
);

/** Admin API: one activity with what the public record leaves out (its data and why it ended). */
export function liveActivitiesAdminRoutes(services: Services) {
  return adminGroup(services, 'Admin: live activities').get(
    '/apps/:appId/live-activities/:id',
    async ({ params }) => {
      await services.apps.get(params.appId);
      return services.liveActivities.detail(params.appId, params.id);
    },
    {
      params: t.Object({ appId: t.String(), id: t.String() }),
      response: {
        200: t.Composite([
          LiveActivityRecord,
          t.Object({
            endReason: t.Union([t.Literal('api'), t.Literal('quota'), t.Literal('expired'), t.Literal('cancelled'), t.Literal('not_started'), t.Null()], {
              description:
                'Why it ended: api (DELETE), quota (minutes used up), expired (iOS 8-hour limit), cancelled (DELETE of a Scheduled start before its time: nothing was sent), not_started (due, but it could not start: no device left, minutes used up, template gone); null while Scheduled or Active.',
            }),
            attributes: Values,
            contentState: Values,
            hasPushToken: t.Boolean({ description: 'iOS: whether an iOS device reported its update token for the activity.' }),
            instances: t.Array(Instance, { description: 'One per device the activity was started on (or that reported a token for it), oldest first.' }),
            noInstanceReason: t.Union([t.String(), t.Null()], {
              description:
                'Without instances: why no device shows the activity (e.g. `device has no push-to-start token`); such an activity uses no live activity minutes. Null when it has an instance.',
            }),
          }),
        ]),
        ...errors(401, 404),
      },
      detail: { summary: 'Get an activity with its data, end reason and per-device instances' },
    },
  );
}
