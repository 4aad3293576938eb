import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { errors, PageQuery, Success } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { DEMO } from '../apps/demo.service';
import { OPTIONAL_BODY } from '../docs/polish-document';
import { parseDate } from '../../http/dates';
import { ContentOptions, contentOptions, EndOptions } from './live-activities.options';
import { tokenProblem } from '../devices/token-format';
import { AudienceBody, audienceFilter, requireOneTarget } from '../devices/audience';
import { LiveActivityRecord } from './live-activities.view';
import { startTimeOf } from './start-time';
import { LIVE_ACTIVITY_TEMPLATES, TEMPLATE_SLUGS } from './templates';

const SCALAR = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }];
/**
 * Attributes or a contentState: every value a string for the eight built-in templates (the spec's
 * rule), typed values (numbers, booleans, dates as ISO 8601 strings, lists) for an app-defined
 * template. The document shows the value types; the values are checked against the template by the
 * service, so a built-in's non-string value answers the spec's `… must be a string` whatever it is.
 */
export const ActivityValues = (description: string) =>
  t.Record(t.String(), t.Any({ anyOf: [...SCALAR, { type: 'array', items: { anyOf: SCALAR } }] }), {
    description: `${description} Built-in templates: every value a string. App-defined templates: each value of its field's type (a date as an ISO 8601 timestamp, a list as an array).`,
  });

/** The body of a start, also the body of an activity stream's PUT. */
export const StartBody = t.Object(
  {
    templateSlug: t.String({
      description: `One of the eight template slugs (${TEMPLATE_SLUGS.join(', ')}) or the slug of a template the app defined (\`/api/admin/apps/{appId}/live-activity-templates\`).`,
    }),
    attributes: t.Optional(ActivityValues('Static data, set once. Required in effect for templates with required attributes.')),
    contentState: ActivityValues('Initial dynamic data.'),
    targetUsers: t.Optional(
      t.Array(t.String({ minLength: 1 }), {
        minItems: 1,
        description: 'End user identifiers. When omitted, the activity starts for every connected end user. Duplicates are merged; unknown identifiers are skipped.',
      }),
    ),
    ...ContentOptions,
  },
  {
    additionalProperties: false,
    examples: [
      ...LIVE_ACTIVITY_TEMPLATES.map((tpl) => ({ templateSlug: tpl.slug, ...tpl.sample, targetUsers: [DEMO.endUserId] })),
      {
        templateSlug: 'progress-bar',
        attributes: { label: 'Uploading' },
        contentState: { progress: '0', detail: '0 of 50' },
        targetUsers: [DEMO.endUserId],
        alert: { title: 'Upload started', body: '50 files', sound: 'default' },
        staleDate: '2026-11-23T12:00:00Z',
        relevanceScore: 50,
      },
    ],
  },
);

/** A start's body: a stream's, an `audience` instead of `targetUsers` (issue 38), and a start time (issue 47). */
const StartNowBody = t.Object(
  {
    ...StartBody.properties,
    audience: t.Optional(AudienceBody),
    startAt: t.Optional(
      t.String({
        maxLength: 64,
        description:
          'Schedules the start: an ISO 8601 time with an offset or `Z`. The activities are created now in state `Scheduled`; the push-to-start (iOS) and the start (Android) go then, and their minutes count from then. At most a minute in the past, at most 30 days ahead. Not with `startAtLocal`.',
        examples: ['2026-12-24T20:00:00+01:00'],
      }),
    ),
    startAtLocal: t.Optional(
      t.String({
        maxLength: 64,
        description:
          "Schedules the start for a wall time in each end user's zone: the `timeZone` of the device the activity's platform comes from (their most recently registered), else the app's `defaultTimeZone`. A local date-time without offset (`2026-12-24T20:00`); end users where it has passed get no activity. Not with `startAt`.",
        examples: ['2026-12-24T20:00'],
      }),
    ),
  },
  {
    additionalProperties: false,
    // No example with a fixed startAt: within a month it would be refused as past (the field's
    // description shows the format), and every example is one a demo instance accepts as it stands.
    examples: StartBody.examples,
  },
);

const UpdateBody = t.Object(
  { contentState: ActivityValues('The new dynamic data; replaces the previous contentState entirely.'), ...ContentOptions },
  {
    additionalProperties: false,
    examples: [
      { contentState: { progress: '75', detail: '38 of 50' } },
      { contentState: { progress: '76', detail: '38 of 50' }, priority: 5, staleDate: 1795435200 },
      { contentState: { progress: '100', detail: 'Done' }, alert: { title: 'Upload finished', body: '50 of 50 files' } },
    ],
  },
);

const EndBody = t.Optional(
  t.Object(
    {
      contentState: t.Optional(ActivityValues('The final dynamic data shown until the activity is dismissed; validated like an update.')),
      ...EndOptions,
    },
    {
      additionalProperties: false,
      [OPTIONAL_BODY]: true,
      description: 'Optional: without a body the activity ends with its current content and is removed from the device at once.',
      examples: [{ contentState: { progress: '100', detail: 'Done' }, dismissalDate: '2026-11-23T12:15:00Z' }, { dismissalDate: 0 }],
    },
  ),
);

const ActivityParams = t.Object({ appId: t.String({ description: 'The app identifier.' }), id: t.String({ description: 'The activity identifier.' }) });

const ListQuery = t.Object(
  {
    ...PageQuery,
    state: t.Optional(t.Union([t.Literal('Scheduled'), t.Literal('Active'), t.Literal('Ended')], { description: 'Only activities in this state.' })),
    endUserId: t.Optional(t.String({ description: 'Only activities of this end user.' })),
    templateSlug: t.Optional(t.String({ description: 'Only activities of this template.' })),
  },
  // Unknown query parameters (e.g. a cache buster) are ignored rather than refused.
  { additionalProperties: true },
);

const tags = ['Live Activities'];
const security = [{ serviceKey: [] }];
const signedBy =
  'Authenticated by `X-Service-Key` (the app backend) or, from the device, `X-End-User-Signature` = hex(HMAC-SHA256(Signing Secret, endUserId of the activity)).';

/** The public Live Activities API (spec endpoints 1-4), one record, and the iOS token report. */
export function liveActivitiesRoutes(services: Services) {
  const { auth, liveActivities, clock } = services;
  return new Elysia({ detail: { tags } })
    .post(
      '/api/apps/:appId/live-activities',
      ({ request, body }) => {
        requireOneTarget(body);
        const { startAt, startAtLocal, ...start } = body;
        const at = startTimeOf({ startAt, startAtLocal }, clock.now());
        return liveActivities.start(auth.appOf(request), { ...start, audience: body.audience && audienceFilter(body.audience) }, { at });
      },
      {
      // Authenticates before the body is validated: a caller without the header always gets 401.
      transform: auth.requireKey,
      params: t.Object({ appId: t.String({ description: 'The app identifier.' }) }),
      body: StartNowBody,
      response: {
        200: t.Object({
          activityCount: Type.Integer({ description: 'Number of activities created (one per targeted connected end user).' }),
          activities: t.Array(LiveActivityRecord, { description: 'One per activity created, each with state `Active` (`Scheduled` for a scheduled start).' }),
          scheduledFor: t.Optional(t.String({ format: 'date-time', description: 'A scheduled start: when its earliest activity starts.' })),
        }),
        ...errors(400, 401, 403, 413, 429),
      },
      detail: {
        summary: 'Start Live Activities',
        description:
          'Starts one activity per targeted end user from a template, and queues its delivery to each of their devices. ' +
          'Options: `alert` (default: the template’s alert), `priority` (`auto`, the default: a start goes at 10; 10: immediate, spends the device’s Live Activity budget; 5: saves it), ' +
          '`staleDate` and `relevanceScore`; dates are ISO 8601 or Unix seconds. ' +
          'Errors: 400 `invalid template slug`, or a detail naming the invalid field; 400 `payload exceeds 4096 bytes`; ' +
          '400 `audience and targetUsers cannot be given together`; ' +
          'With `startAt` or `startAtLocal` the start is checked now (plan, template, data, minutes), its activities answered in state `Scheduled` with `scheduledFor`, and it goes when due, once; a `DELETE` before then cancels it and nothing is sent. ' +
          '400 names `startAt` for a malformed time, one more than a minute in the past or more than 30 days ahead, or both fields given; ' +
          '403 `live activities are not available on your current plan`; 429 `live activity minutes limit exceeded for this billing period`.',
        tags,
        security,
      },
    },
    )
    .get(
      '/api/apps/:appId/live-activities',
      ({ request, query }) => {
        const { limit = 50, offset = 0, ...filter } = query;
        return liveActivities.list(auth.appOf(request).id, filter, limit, offset);
      },
      {
        transform: auth.requireKey,
        query: ListQuery,
        response: {
          200: t.Object({
            activities: t.Array(LiveActivityRecord, { description: 'Newest first (startedAt, then id). Ended records include endedAt.' }),
            total: Type.Integer({ description: 'Count of all activities matching the filters, not only this page.' }),
          }),
          ...errors(400, 401, 429),
        },
        detail: { summary: 'List Live Activities', description: 'Active and ended activities of the app, newest first.', tags, security },
      },
    )
    .get('/api/apps/:appId/live-activities/:id', ({ request, params }) => liveActivities.get(auth.appOf(request).id, params.id), {
      transform: auth.requireKey,
      params: ActivityParams,
      response: { 200: LiveActivityRecord, ...errors(401, 404, 429) },
      detail: { summary: 'Get a Live Activity', description: 'Errors: 404 `live activity not found`.', tags, security },
    })
    .patch(
      '/api/apps/:appId/live-activities/:id',
      async ({ request, params, body }) => {
        await liveActivities.update(auth.appOf(request).id, params.id, body.contentState, contentOptions(body));
        return { success: true as const };
      },
      {
        transform: async (context) => {
          await auth.requireKey(context);
          const body = context.body as Record<string, unknown> | undefined;
          if (body && typeof body === 'object' && 'attributes' in body) throw new HttpError(400, 'attributes cannot be changed');
        },
        params: ActivityParams,
        body: UpdateBody,
        response: { 200: Success, ...errors(400, 401, 404, 409, 413, 429) },
        detail: {
          summary: 'Update a Live Activity',
          description:
            'Replaces the contentState entirely (send the full state every time); it is validated against the template. Attributes cannot be changed. ' +
            'Options: `alert` lights the screen, `priority` (`auto`, the default: 10 while the activity’s budget on each iPhone allows, then 5; with an alert 10; 10 spends the budget, 5 saves it), `staleDate`, `relevanceScore`. ' +
            'Errors: 404 `live activity not found`; 409 `live activity is not active`; 400 naming the invalid field.',
          tags,
          security,
        },
      },
    )
    .delete(
      '/api/apps/:appId/live-activities/:id',
      async ({ request, params, body }) => {
        await liveActivities.end(auth.appOf(request).id, params.id, {
          ...(body?.contentState ? { contentState: body.contentState } : {}),
          ...(body?.priority !== undefined ? { priority: body.priority } : {}),
          ...(body?.dismissalDate !== undefined ? { dismissalAt: parseDate(body.dismissalDate, 'dismissalDate') } : {}),
        });
        return { success: true as const };
      },
      {
        transform: auth.requireKey,
        params: ActivityParams,
        body: EndBody,
        response: { 200: Success, ...errors(400, 401, 404, 409, 413, 429) },
        detail: {
          summary: 'End a Live Activity',
          description:
            'The activity becomes `Ended` and is removed from every device it runs on (a `Scheduled` one before its time: its start is cancelled, nothing is sent, end reason `cancelled`). No body is needed; an optional JSON body gives a final `contentState` ' +
            'and a `dismissalDate` that keeps that final state visible until then (absent or past: removed at once). ' +
            'Errors: 404 `live activity not found`; 409 `live activity is not active`; 400 naming the invalid field.',
          tags,
          security,
        },
      },
    )
    .put(
      '/api/apps/:appId/live-activities/:id/push-token',
      async ({ request, params, body }) => {
        const problem = tokenProblem('ios', body.token, 'token');
        if (problem) throw new HttpError(400, problem);
        await liveActivities.reportPushToken(auth.appOf(request).id, params.id, body);
        return { success: true as const };
      },
      {
        // The signature is over the activity's end user, so the activity is looked up first.
        transform: async ({ request, params }) => {
          const appId = params.appId ?? '';
          await auth.appOrEndUser(request, appId, await liveActivities.endUserOf(appId, params.id ?? ''));
        },
        params: ActivityParams,
        body: t.Object(
          {
            token: t.String({ minLength: 1, maxLength: 4096, description: 'The activity’s APNs update token (hex) this device got from `pushTokenUpdates`.' }),
            deviceId: t.Optional(
              t.String({
                minLength: 1,
                description: 'The `id` device registration answered for this device. Required when the end user has more than one iOS device.',
              }),
            ),
          },
          { additionalProperties: false, examples: [{ token: 'f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f', deviceId: DEMO.iphoneId }] },
        ),
        response: { 200: Success, ...errors(400, 401, 404, 413, 429) },
        detail: {
          summary: 'Report the push token of an iOS activity',
          description:
            'An iOS device reports the update token of its instance of the activity (issued after a push-to-start; iOS may rotate it: report each one). ' +
            'Updates and the end held for that device are sent. 400 `deviceId is required: the end user has more than one iOS device`. ' +
            signedBy,
          tags,
          security: [{ serviceKey: [] }, { endUserSignature: [] }],
        },
      },
    );
}
