import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { errors, PageQuery } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import type { ApnsCredentials } from '../apps/credentials';
import { ApnsChannels } from '../delivery/providers/apns/apns.channels';
import { ApnsClient } from '../delivery/providers/apns/apns.client';
import { BroadcastRecord, broadcastView } from './broadcasts.view';
import { broadcastsRepository } from './broadcasts.repository';

const StringMap = (description: string) => t.Record(t.String(), t.String(), { description });

/** The admin list adds what the broadcast shows, so the console can update it from there. */
const AdminBroadcastRecord = t.Object({
  ...BroadcastRecord.properties,
  attributes: StringMap('Static data, set at creation.'),
  contentState: StringMap('The current dynamic data: that of the last update (or of the creation).'),
});

const EnvironmentQuery = t.Object(
  {
    environment: t.Optional(t.Union([t.Literal('production'), t.Literal('sandbox')], { description: "The APNs environment; absent: the app's `environment`." })),
  },
  { additionalProperties: true },
);

/**
 * The operator's view of broadcasts: the app's broadcasts (held ones say why), and its channels
 * at Apple, with the orphans (at Apple, unknown to Islet: made by another tool, or left by a
 * lost database) that count toward Apple's 10,000 and can be removed here.
 */
export function broadcastsAdminRoutes(services: Services) {
  const { apps, broadcasts, ctx } = services;
  // Admin calls to Apple are rare: a client of their own, made at the first.
  let channels: ApnsChannels | undefined;
  const apple = () =>
    (channels ??= new ApnsChannels(new ApnsClient({ clock: ctx.clock, logger: ctx.logger, outbound: { allowPrivate: ctx.config.security.allow_private_endpoints } }), { clock: ctx.clock }));

  /** The app's APNs credentials and the environment asked for; without credentials, the simulator's. */
  const credentials = async (appId: string, asked: 'production' | 'sandbox' | undefined) => {
    const creds: ApnsCredentials | undefined = apps.apns(await apps.get(appId));
    return creds ? { creds, environment: asked ?? creds.environment } : { creds: undefined, environment: 'simulator' as const };
  };

  return adminGroup(services, 'Admin: broadcasts')
    .get(
      '/apps/:appId/broadcasts',
      async ({ params, query }) => {
        await apps.get(params.appId);
        const { rows, total } = await broadcastsRepository(ctx.db.sql).list(params.appId, query.state, query.limit ?? 50, query.offset ?? 0);
        const record = (row: (typeof rows)[number]) => ({ ...broadcastView(row), attributes: JSON.parse(row.attributes), contentState: JSON.parse(row.contentState) });
        return { broadcasts: rows.map(record), total };
      },
      {
        params: t.Object({ appId: t.String() }),
        query: t.Object({ ...PageQuery, state: t.Optional(t.Union([t.Literal('Active'), t.Literal('Ended')])) }, { additionalProperties: true }),
        response: { 200: t.Object({ broadcasts: t.Array(AdminBroadcastRecord), total: Type.Integer() }), ...errors(400, 401, 404) },
        detail: {
          summary: "An app's broadcasts",
          description:
            'As the public list shows them, with their `attributes` and current `contentState`; `channel.reason` says why one waits (FeatureNotEnabled: enable Broadcast Capability in Apple’s portal).',
        },
      },
    )
    .get(
      '/apps/:appId/broadcast-channels',
      async ({ params, query }) => {
        const { creds, environment } = await credentials(params.appId, query.environment);
        const known = await broadcastsRepository(ctx.db.sql).knownChannels(params.appId, environment);
        if (!creds) return { environment, channels: [...known].map((id) => ({ id, orphan: false })), orphans: 0 };
        const listed = await apple().list(creds, environment);
        if (listed.kind !== 'listed') throw new HttpError(502, `APNs did not list the channels: ${listed.reason}`);
        const channels = listed.channelIds.map((id) => ({ id, orphan: !known.has(id) }));
        return { environment, channels, orphans: channels.filter((c) => c.orphan).length };
      },
      {
        params: t.Object({ appId: t.String() }),
        query: EnvironmentQuery,
        response: {
          200: t.Object({
            environment: t.Union([t.Literal('production'), t.Literal('sandbox'), t.Literal('simulator')]),
            channels: t.Array(t.Object({ id: t.String(), orphan: t.Boolean({ description: 'At Apple, but no broadcast of Islet has it.' }) })),
            orphans: Type.Integer({ description: 'Channels that count toward Apple’s 10,000 without a broadcast.' }),
          }),
          ...errors(400, 401, 404, 502),
        },
        detail: {
          summary: "An app's broadcast channels at Apple",
          description: "Apple's list (`all-channels`) of the environment, each marked orphan when no broadcast of Islet has it. Simulator apps: the simulated channels Islet holds.",
        },
      },
    )
    .delete(
      '/apps/:appId/broadcast-channels',
      async ({ params, query }) => {
        const { creds, environment } = await credentials(params.appId, query.environment);
        const id = query.id;
        if ((await broadcastsRepository(ctx.db.sql).knownChannels(params.appId, environment)).has(id))
          throw new HttpError(409, 'the channel belongs to a broadcast: end the broadcast instead');
        if (!creds) throw new HttpError(404, 'channel not found');
        const removed = await apple().remove(creds, environment, id);
        if (removed.kind === 'channel-gone') throw new HttpError(404, 'channel not found');
        if (removed.kind !== 'deleted') throw new HttpError(502, `APNs did not delete the channel: ${removed.reason}`);
        return { channelId: id, deleted: true as const };
      },
      {
        params: t.Object({ appId: t.String() }),
        query: t.Object({ ...EnvironmentQuery.properties, id: t.String({ minLength: 1, description: 'The orphan channel id (base64, URL-encoded).' }) }, { additionalProperties: true }),
        response: { 200: t.Object({ channelId: t.String(), deleted: t.Literal(true) }), ...errors(400, 401, 404, 409, 502) },
        detail: {
          summary: 'Remove an orphan broadcast channel at Apple',
          description: 'Deletes a channel no broadcast of Islet has (for good: Apple never issues its id again). Errors: 409 for a channel of a broadcast (end the broadcast); 404 `channel not found`.',
        },
      },
    );
}
