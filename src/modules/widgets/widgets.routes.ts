import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { AppParams, errors } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { AudienceBody, audienceFilter, requireOneTarget } from '../devices/audience';
import { DEMO } from '../apps/demo.service';
import type { ReloadTarget } from './widgets.service';

const ReloadBody = t.Object(
  {
    targetUsers: t.Optional(
      t.Array(t.String({ minLength: 1 }), { minItems: 1, description: 'End user identifiers whose devices reload. Duplicates are merged; unknown identifiers are skipped.' }),
    ),
    audience: t.Optional(AudienceBody),
  },
  { additionalProperties: false, examples: [{ targetUsers: [DEMO.endUserId] }, { audience: { tags: { team: 'rapid-vienna' } } }, { audience: {} }] },
);

const Reloaded = t.Object({
  tokenCount: Type.Integer({ description: 'Tokens reached, one push each: the active widget push token of each of the targets’ iOS devices, or each of their control push tokens (one per control).' }),
  coalesced: Type.Integer({ description: 'Of them, those that already had a reload waiting to be sent: that one push stands for this reload too.' }),
});

const WHAT = {
  widgets: {
    path: 'widgets',
    summary: 'Reload widgets',
    token: '`widgetPushToken` (iOS 26+, `WidgetPushHandler`)',
    apns: '`apns-push-type: widgets`, `apns-topic: <bundleId>.push-type.widgets`',
  },
  controls: {
    path: 'controls',
    summary: 'Reload controls',
    token: '`controlPushToken` (iOS 18+, `ControlPushHandler`)',
    apns: '`apns-push-type: controls`, `apns-topic: <bundleId>.push-type.controls`, `apns-priority: 10`, `apns-expiration: 0`',
  },
} as const;

/** `POST /api/apps/{appId}/widgets/reload` and `…/controls/reload`: WidgetKit reloads (issue 47). */
export function widgetsRoutes(services: Services) {
  const { auth, widgets } = services;
  const route = (target: ReloadTarget) => {
    const what = WHAT[target];
    return new Elysia().post(
      `/api/apps/:appId/${what.path}/reload`,
      async ({ request, body, set }) => {
        requireOneTarget(body);
        if (body.targetUsers === undefined && body.audience === undefined) throw new HttpError(400, 'targetUsers or audience is required: name who reloads (audience {} is every connected end user)');
        const result = await widgets.reload(auth.appOf(request).id, target, { endUserIds: body.targetUsers && [...new Set(body.targetUsers)], audience: body.audience && audienceFilter(body.audience) });
        set.status = 202;
        return result;
      },
      {
        transform: auth.requireKey,
        params: AppParams,
        body: ReloadBody,
        response: { 202: Reloaded, ...errors(400, 401, 413, 429) },
        detail: {
          summary: what.summary,
          description:
            `Queues \`{"aps":{"content-changed":true}}\` to the ${what.token} of each iOS device of the targets, with ${what.apns}; WidgetKit then reloads them from the app's data. ` +
            'Coalesced per token: a device whose reload has not gone yet gets no second push. A token APNs refuses (BadDeviceToken, Unregistered) is retired, the device stays. ' +
            'Errors: 400 `targetUsers or audience is required: …` for a body naming neither (`audience: {}` reaches every connected end user); 400 `audience and targetUsers cannot be given together`.',
          tags: ['Widgets'],
          security: [{ serviceKey: [] }],
        },
      },
    );
  };
  return new Elysia({ detail: { tags: ['Widgets'] } }).use(route('widgets')).use(route('controls'));
}
