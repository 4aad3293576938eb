import { Elysia, t } from 'elysia';
import { errors, Success } from '../../http/schemas';
import type { Services } from '../../services';
import { DEMO } from '../apps/demo.service';
import { reportInstanceState } from './instance-state.service';

const tags = ['Live Activities'];

/** The app's report on its instance of an activity: dismissed or ended, and frequent pushes allowed (issue 47). */
export function instanceStateRoutes(services: Services) {
  const { auth, liveActivities, ctx } = services;
  return new Elysia({ detail: { tags } }).post(
    '/api/apps/:appId/live-activities/:id/state',
    ({ request, params, body }) => reportInstanceState(ctx, auth.appOf(request).id, params.id, body),
    {
      // The signature is over the activity's end user, so the activity is looked up first (as for the push token).
      transform: async ({ request, params }) => {
        const appId = params.appId ?? '';
        await auth.appOrEndUser(request, appId, await liveActivities.endUserOf(appId, params.id ?? ''));
      },
      params: t.Object({ appId: t.String({ description: 'The app identifier.' }), id: t.String({ description: 'The activity identifier.' }) }),
      body: t.Object(
        {
          deviceId: t.String({ minLength: 1, description: 'The `id` device registration answered for this device.' }),
          state: t.Optional(
            t.Union([t.Literal('active'), t.Literal('dismissed'), t.Literal('ended')], {
              description: 'The activity’s state on the device (ActivityKit `activityStateUpdates`): `dismissed` or `ended` stops every further push to it.',
            }),
          ),
          frequentPushesEnabled: t.Optional(
            t.Boolean({ description: '`ActivityAuthorizationInfo().frequentPushesEnabled`: true gives the device the app’s `frequentPriority10PerHour` budget.' }),
          ),
        },
        {
          additionalProperties: false,
          examples: [{ deviceId: DEMO.iphoneId, state: 'dismissed' }, { deviceId: DEMO.iphoneId, frequentPushesEnabled: true }],
        },
      ),
      response: { 200: Success, ...errors(400, 401, 404, 413, 429) },
      detail: {
        summary: 'Report a Live Activity’s state on a device',
        description:
          'Sent by the app when ActivityKit reports the activity dismissed or ended on the device (no more pushes go to that instance; the activity’s record shows it), ' +
          'and when the person allows or forbids frequent updates (`priority: "auto"` then keeps to the frequent budget on that device). ' +
          '400 `state or frequentPushesEnabled is required`; 404 `live activity not found`, `device not found: …`, `the activity has no instance on this device`. ' +
          'Authenticated by `X-Service-Key` (the app backend) or, from the device, `X-End-User-Signature` = hex(HMAC-SHA256(Signing Secret, endUserId of the activity)).',
        security: [{ serviceKey: [] }, { endUserSignature: [] }],
      },
    },
  );
}
