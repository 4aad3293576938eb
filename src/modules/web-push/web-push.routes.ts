import { Elysia, t } from 'elysia';
import { AppParams, errors, Int } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';

export const WebPushSettingsRecord = t.Object({
  publicKey: t.String({ description: 'base64url of the 65-byte uncompressed P-256 point: the `applicationServerKey` of `pushManager.subscribe`.' }),
  subject: t.String({ description: 'The contact the push services see (`mailto:` or `https:`).' }),
  defaultUrl: t.String({ description: 'What a notification opens when its template has no `url`.' }),
  expiryDays: Int({ description: 'Days a subscription not registered again stays a target.' }),
});

/** `PUT/GET/DELETE /api/admin/apps/{appId}/web-push`: an app's Web Push settings and VAPID key. */
export function webPushAdminRoutes(services: Services) {
  const { apps, webPush } = services;
  const found = async (appId: string) => {
    await apps.get(appId);
    const row = await webPush.find(appId);
    if (!row) throw new HttpError(404, 'the app has no Web Push');
    return row;
  };
  return adminGroup(services, 'Admin: apps')
    .put(
      '/apps/:appId/web-push',
      async ({ params, body }) => {
        await apps.get(params.appId);
        return webPush.view(await webPush.configure(params.appId, { ...body, source: 'api' }));
      },
      {
        params: AppParams,
        body: t.Object(
          {
            subject: t.String({ description: 'A `mailto:` address or an `https:` URL (Apple refuses others), no spaces or angle brackets, not localhost.' }),
            defaultUrl: t.String({ description: 'An https URL: what a notification opens when its template has no `url`.' }),
            expiryDays: t.Optional(Int({ description: 'Days a subscription not registered again stays a target; default 60.' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: WebPushSettingsRecord, ...errors(400, 401, 404) },
        detail: {
          summary: 'Enable Web Push or change its settings',
          description: 'The first call generates a P-256 VAPID key pair (the private key stored encrypted); later calls keep it.',
        },
      },
    )
    .get('/apps/:appId/web-push', async ({ params }) => webPush.view(await found(params.appId)), {
      params: AppParams,
      response: { 200: WebPushSettingsRecord, ...errors(401, 404) },
      detail: { summary: "Show the app's Web Push settings and public key" },
    })
    .delete(
      '/apps/:appId/web-push',
      async ({ params }) => {
        await found(params.appId);
        await webPush.remove(params.appId);
        return { success: true as const };
      },
      {
        params: AppParams,
        response: { 200: t.Object({ success: t.Literal(true) }), ...errors(401, 404) },
        detail: { summary: 'Disable Web Push (the key pair is forgotten: browsers must subscribe again after a new PUT)' },
      },
    );
}

/** `GET /api/apps/{appId}/web-push/public-key`: what a page subscribes with, without credentials. */
export function webPushPublicRoutes(services: Services) {
  const { webPush } = services;
  return new Elysia({ detail: { tags: ['Devices'] } }).get(
    '/api/apps/:appId/web-push/public-key',
    async ({ params }) => {
      const row = await webPush.find(params.appId);
      // Unknown app or no Web Push: one answer, so the route tells nothing else about apps.
      if (!row) throw new HttpError(404, 'the app has no Web Push');
      return { publicKey: row.publicKey };
    },
    {
      params: AppParams,
      response: { 200: t.Object({ publicKey: t.String({ description: 'The `applicationServerKey` (base64url).' }) }), ...errors(404) },
      detail: { summary: "The app's VAPID public key", description: 'No credentials: a page needs it for `pushManager.subscribe`.', security: [] },
    },
  );
}
