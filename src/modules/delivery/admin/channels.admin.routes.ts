import { t } from 'elysia';
import { Int, errors } from '../../../http/schemas';
import { isoTime } from '../../../lib/clock';
import type { Services } from '../../../services';
import { adminGroup } from '../../admin/admin.guard';
import { channelDownReason, channelHealth } from '../endpoint-health/channel-health';

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(type: T) => t.Union([type, t.Null()]);

export const ChannelHealthRecord = t.Object({
  provider: t.Union([t.Literal('apns'), t.Literal('fcm')]),
  endpoint: t.String({ description: 'The provider host the channel sends to (APNs production and sandbox are two channels).' }),
  state: t.Union([t.Literal('healthy'), t.Literal('degraded'), t.Literal('down')]),
  reason: Nullable(t.String({ description: 'The last connection failure or throttling answer, while not healthy.' })),
  since: t.String({ format: 'date-time', description: 'When it entered this state.' }),
  nextProbeAt: Nullable(t.String({ format: 'date-time', description: 'Down: when the next single probe request goes.' })),
  slowUntil: Nullable(t.String({ format: 'date-time', description: 'The provider asked the channel to wait (Retry-After) until then.' })),
  held: Int({ description: 'Deliveries held because the channel is down (no attempt spent).' }),
});

/**
 * The health of an app's delivery channels as this process sees them: one entry per provider
 * endpoint that carried a request since the start (none: nothing sent yet, or only the simulator).
 */
export function channelsAdminRoutes(services: Services) {
  const { apps, ctx } = services;
  const holds = ctx.db.repos.channelHolds;
  return adminGroup(services, 'Admin: deliveries').get(
    '/apps/:appId/channels',
    async ({ params }) => {
      await apps.get(params.appId);
      const held = await holds.heldByReason(params.appId);
      const channels = channelHealth(ctx)
        .list(params.appId)
        .map(({ appId, since, nextProbeAt, slowUntil, ...c }) => ({
          ...c,
          since: isoTime(since),
          nextProbeAt: nextProbeAt === null ? null : isoTime(nextProbeAt),
          slowUntil: slowUntil === null ? null : isoTime(slowUntil),
          held: held.get(channelDownReason({ appId, ...c })) ?? 0,
        }));
      return { channels };
    },
    {
      params: t.Object({ appId: t.String() }),
      response: { 200: t.Object({ channels: t.Array(ChannelHealthRecord) }), ...errors(401, 404) },
      detail: {
        summary: "Health of an app's delivery channels",
        description:
          'healthy, degraded (connection failures or the provider asked to slow down) or down (unreachable: deliveries held, one probe at a time with capped exponential backoff). Kept in memory: after a restart every channel starts healthy.',
      },
    },
  );
}
