import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { errors, PageQuery, Success, withDetail } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { AudienceBody, audienceFilter, requireOneTarget } from '../devices/audience';
import { DEMO } from '../apps/demo.service';
import { OPTIONAL_BODY } from '../docs/polish-document';
import { parseDate } from '../../http/dates';
import { ContentOptions, contentOptions, EndOptions } from '../live-activities/live-activities.options';
import { ActivityValues } from '../live-activities/live-activities.routes';
import { TEMPLATE_SLUGS } from '../live-activities/templates';
import { BroadcastRecord } from './broadcasts.view';


const CreateBody = t.Object(
  {
    templateSlug: t.String({ description: `One of the eight template slugs (${TEMPLATE_SLUGS.join(', ')}) or the slug of a template the app defined.` }),
    attributes: t.Optional(ActivityValues('Static data, set once.')),
    contentState: ActivityValues('Initial dynamic data (what a device shows when it starts the activity).'),
    storagePolicy: t.Optional(
      withDetail(
        Type.Integer({
          minimum: 0,
          maximum: 1,
          description: 'Apple’s message-storage-policy, fixed for the channel: 0 (default) No Message Stored, for frequent updates; 1 Most Recent Message Stored (up to 8 hours, for devices offline).',
        }),
        'storagePolicy must be 0 or 1',
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { templateSlug: 'metric-live', attributes: { label: 'Lions v Tigers' }, contentState: { value: '0 - 0', trend: 'neutral' } },
      { templateSlug: 'status-tracker', attributes: { title: 'Launch', steps: 'Fuelling,Countdown,Liftoff,Orbit' }, contentState: { currentStep: '0', status: 'Fuelling' }, storagePolicy: 1 },
    ],
  },
);

const UpdateBody = t.Object(
  { contentState: ActivityValues('The new dynamic data; replaces the previous contentState entirely.'), ...ContentOptions },
  {
    additionalProperties: false,
    examples: [
      { contentState: { value: '1 - 0', change: '+1', trend: 'up' } },
      { contentState: { value: '1 - 1', trend: 'neutral' }, alert: { title: 'Equaliser!', body: 'Lions 1 - 1 Tigers' }, priority: 10, relevanceScore: 100 },
    ],
  },
);

const EndBody = t.Optional(
  t.Object(
    { contentState: t.Optional(ActivityValues('The final dynamic data; validated like an update.')), ...EndOptions },
    {
      additionalProperties: false,
      [OPTIONAL_BODY]: true,
      description: 'Optional: without a body the broadcast ends with its current content and is removed from devices at once.',
      examples: [{ contentState: { value: '2 - 1', trend: 'up' }, dismissalDate: '2026-11-23T12:15:00Z' }],
    },
  ),
);

const Params = t.Object({
  appId: t.String({ description: 'The app identifier.' }),
  id: t.String({ description: 'The broadcast identifier.' }),
});

const ListQuery = t.Object(
  { ...PageQuery, state: t.Optional(t.Union([t.Literal('Active'), t.Literal('Ended')], { description: 'Only broadcasts in this state.' })) },
  { additionalProperties: true },
);

const tags = ['Broadcasts'];
const security = [{ serviceKey: [] }];

/** Broadcast Live Activities (issue 31): one update for a whole audience through an APNs channel and an FCM topic. */
export function broadcastsRoutes(services: Services) {
  const { auth, broadcasts } = services;
  return new Elysia({ detail: { tags } })
    .post(
      '/api/apps/:appId/broadcasts',
      async ({ request, body, set }) => {
        set.status = 201;
        const { storagePolicy, ...rest } = body;
        return broadcasts.create(auth.appOf(request), { ...rest, ...(storagePolicy === undefined ? {} : { storagePolicy: storagePolicy === 1 ? 1 : 0 }) });
      },
      {
        transform: auth.requireKey,
        params: t.Object({ appId: t.String({ description: 'The app identifier.' }) }),
        body: CreateBody,
        response: { 201: BroadcastRecord, ...errors(400, 401, 403, 409, 413, 429) },
        detail: {
          summary: 'Create a broadcast Live Activity',
          description:
            'Creates a Live Activity for a whole audience: Islet makes an APNs broadcast channel in the app’s environment (iOS 18+; `channel.state` is `creating` until Apple answers, ' +
            'read the broadcast for `channel.id`) and names an FCM topic for Android. An app without APNs credentials gets a simulated channel at once. ' +
            'Errors: 400 `invalid template slug`, a detail naming the invalid field, `payload exceeds 5120 bytes`; 403 `live activities are not available on your current plan`; ' +
            '409 `channel limit reached: …` (Apple allows 10,000 channels per app and environment); 429 the minutes quota, or `broadcasts running at once are limited to N on your current plan`.',
          tags,
          security,
        },
      },
    )
    .get(
      '/api/apps/:appId/broadcasts',
      ({ request, query }) => broadcasts.list(auth.appOf(request).id, query.state, query.limit ?? 50, query.offset ?? 0),
      {
        transform: auth.requireKey,
        query: ListQuery,
        response: {
          200: t.Object({
            broadcasts: t.Array(BroadcastRecord, { description: 'Newest first.' }),
            total: Type.Integer({ description: 'Count of all broadcasts matching the filter.' }),
          }),
          ...errors(400, 401, 429),
        },
        detail: { summary: 'List broadcasts', description: 'Active and ended broadcasts of the app, newest first.', tags, security },
      },
    )
    .get('/api/apps/:appId/broadcasts/:id', ({ request, params }) => broadcasts.get(auth.appOf(request).id, params.id), {
      transform: auth.requireKey,
      params: Params,
      response: { 200: BroadcastRecord, ...errors(401, 404, 429) },
      detail: {
        summary: 'Get a broadcast',
        description: 'The channel id (iOS: `pushType: .channel(id)`) and FCM topic (Android) a mobile app subscribes with. Errors: 404 `broadcast not found`.',
        tags,
        security,
      },
    })
    .patch(
      '/api/apps/:appId/broadcasts/:id',
      async ({ request, params, body }) => {
        await broadcasts.update(auth.appOf(request).id, params.id, body.contentState, contentOptions(body));
        return { success: true as const };
      },
      {
        transform: async (context) => {
          await auth.requireKey(context);
          const body = context.body as Record<string, unknown> | undefined;
          if (body && typeof body === 'object' && 'attributes' in body) throw new HttpError(400, 'attributes cannot be changed');
        },
        params: Params,
        body: UpdateBody,
        response: { 200: Success, ...errors(400, 401, 404, 409, 413, 429) },
        detail: {
          summary: 'Update a broadcast',
          description:
            'Replaces the contentState (validated against the template) and queues one APNs broadcast to the channel and one FCM message to the topic; ' +
            'an update not sent yet is superseded by a newer one (latest wins). Options as for Live Activities: `alert`, `priority`, `staleDate`, `relevanceScore`. ' +
            'Errors: 404 `broadcast not found`; 409 `broadcast is not active`; 400 naming the invalid field or `payload exceeds 5120 bytes`.',
          tags,
          security,
        },
      },
    )
    .delete(
      '/api/apps/:appId/broadcasts/:id',
      async ({ request, params, body }) => {
        await broadcasts.end(auth.appOf(request).id, params.id, {
          ...(body?.contentState ? { contentState: body.contentState } : {}),
          ...(body?.priority !== undefined ? { priority: body.priority } : {}),
          ...(body?.dismissalDate !== undefined ? { dismissalAt: parseDate(body.dismissalDate, 'dismissalDate') } : {}),
        });
        return { success: true as const };
      },
      {
        transform: auth.requireKey,
        params: Params,
        body: EndBody,
        response: { 200: Success, ...errors(400, 401, 404, 409, 413, 429) },
        detail: {
          summary: 'End a broadcast',
          description:
            'The broadcast becomes `Ended`: one end to the channel and the topic removes it from every device at once, or at `dismissalDate`; ' +
            'the APNs channel is deleted at Apple once the dismissal date has passed. Errors: 404 `broadcast not found`; 409 `broadcast is not active`.',
          tags,
          security,
        },
      },
    )
    .post(
      '/api/apps/:appId/broadcasts/:id/subscribers',
      ({ request, params, body }) => {
        requireOneTarget(body ?? {});
        return broadcasts.subscribe(auth.appOf(request).id, params.id, body?.targetUsers, body?.audience && audienceFilter(body.audience));
      },
      {
        transform: auth.requireKey,
        params: Params,
        body: t.Optional(
          t.Object(
            {
              targetUsers: t.Optional(
                t.Array(t.String({ minLength: 1 }), { minItems: 1, description: 'End user identifiers; absent: every connected end user. Unknown ids are skipped.' }),
              ),
              audience: t.Optional(AudienceBody),
            },
            { additionalProperties: false, [OPTIONAL_BODY]: true, examples: [{ targetUsers: [DEMO.endUserId] }] },
          ),
        ),
        response: {
          200: t.Object({
            started: Type.Integer({ description: 'Devices a start was queued to.' }),
            skipped: t.Array(t.Object({ deviceId: t.String(), reason: t.String() }), {
              description: 'Devices that cannot start it: an iPhone registered with an `osVersion` before 18, or without a push-to-start token.',
            }),
          }),
          ...errors(400, 401, 404, 409, 413, 429),
        },
        detail: {
          summary: 'Start a broadcast on devices',
          description:
            'Starts the broadcast on the target users’ devices: a push-to-start carrying `input-push-channel` to each iPhone (iOS 18+ only; Apple: an older iPhone does not start it), ' +
            'and a data message with `topic` to each Android device, whose app subscribes to the topic. Apps may also subscribe themselves (docs/device-contract.md). ' +
            'Errors: 400 `audience and targetUsers cannot be given together`; 404 `broadcast not found`; 409 `broadcast is not active`, `broadcast channel is not open yet (creating)`.',
          tags,
          security,
        },
      },
    );
}
