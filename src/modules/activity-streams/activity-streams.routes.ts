import { Elysia, t } from 'elysia';
import { errors } from '../../http/schemas';
import type { Services } from '../../services';
import { StartBody } from '../live-activities/live-activities.routes';
import { LiveActivityRecord } from '../live-activities/live-activities.view';

const tags = ['Live Activity streams'];
const security = [{ serviceKey: [] }];
const StreamParams = t.Object({
  appId: t.String({ description: 'The app identifier.' }),
  key: t.String({ description: 'The stream key: 1 to 128 of A-Z, a-z, 0-9, `.`, `_`, `:` and `-` (e.g. `order:1234`).' }),
});
const ActivityIds = t.Array(t.String(), { description: 'The stream’s current activities (one per targeted end user).' });
const path = '/api/apps/:appId/live-activity-streams/:key';

/** Activity streams: PUT the state of a key, Islet starts, updates, does nothing or starts over. */
export function activityStreamsRoutes(services: Services) {
  const { auth, streams } = services;
  return new Elysia({ detail: { tags } })
    .put(path, ({ request, params, body }) => streams.put(auth.appOf(request), params.key, body), {
      transform: auth.requireKey,
      params: StreamParams,
      body: StartBody,
      response: {
        200: t.Object({
          status: t.Union([t.Literal('started'), t.Literal('updated'), t.Literal('noop'), t.Literal('rotated')], {
            description:
              '`started`: no live activity was under the key (or the template, attributes or targets changed: what ran was ended); ' +
              '`updated`: contentState changed and was sent; `noop`: identical, nothing sent; ' +
              '`rotated`: an iOS instance neared the 8-hour limit, so the activities were ended and new ones started for the same targets.',
          }),
          activityIds: ActivityIds,
        }),
        ...errors(400, 401, 403, 413, 429),
      },
      detail: {
        summary: 'Put the state of a Live Activity stream',
        description:
          'Say "this is the state now" under a key of your choosing; Islet remembers the activities. The body is that of a start. ' +
          'Rotation happens at the first PUT after an iOS instance has run `streams.rotate_after_minutes` (default 450). ' +
          'Plan, quota and validation are those of start (403, 429, 400) and update.',
        tags,
        security,
      },
    })
    .get(path, ({ request, params }) => streams.get(auth.appOf(request).id, params.key), {
      transform: auth.requireKey,
      params: StreamParams,
      response: {
        200: t.Object({
          key: t.String(),
          state: t.Union([t.Literal('Active'), t.Literal('Ended')], { description: 'Active while one of its activities is.' }),
          templateSlug: t.String(),
          attributes: t.Record(t.String(), t.Unknown()),
          contentState: t.Record(t.String(), t.Unknown(), { description: 'The last contentState put.' }),
          targetUsers: t.Union([t.Array(t.String()), t.Null()], { description: 'null: every connected end user.' }),
          activityIds: ActivityIds,
          activities: t.Array(LiveActivityRecord),
          startedAt: t.String({ format: 'date-time', description: 'When its current activities started.' }),
          updatedAt: t.String({ format: 'date-time' }),
        }),
        ...errors(400, 401, 404, 429),
      },
      detail: { summary: 'Get a Live Activity stream', description: 'Errors: 404 `activity stream not found`.', tags, security },
    })
    .delete(path, ({ request, params }) => streams.remove(auth.appOf(request).id, params.key), {
      transform: auth.requireKey,
      params: StreamParams,
      response: { 200: t.Object({ activityIds: t.Array(t.String(), { description: 'The activities this ended.' }) }), ...errors(400, 401, 404, 429) },
      detail: {
        summary: 'End a Live Activity stream',
        description: 'Ends the stream’s live activities (their end goes to every device) and forgets the key. Errors: 404 `activity stream not found`.',
        tags,
        security,
      },
    });
}
