import { t } from 'elysia';
import { Int, errors } from '../../../http/schemas';
import { isoTime } from '../../../lib/clock';
import type { Services } from '../../../services';
import { adminGroup } from '../../admin/admin.guard';
import { endpointHoldsRepository, heldKey } from '../endpoint-health/endpoint-holds.repository';

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(type: T) => t.Union([type, t.Null()]);

export const EndpointHealthRecord = t.Object({
  provider: t.Union([t.Literal('apns'), t.Literal('fcm'), t.Literal('webpush')]),
  endpoint: t.String({ description: 'The provider host the app sends to (APNs production and sandbox are two endpoints).' }),
  state: t.Union([t.Literal('healthy'), t.Literal('degraded'), t.Literal('down')]),
  reason: Nullable(t.String({ description: 'The last connection failure or throttling answer, while not healthy.' })),
  since: t.String({ format: 'date-time', description: 'When it entered this state.' }),
  nextProbeAt: Nullable(t.String({ format: 'date-time', description: 'Down: when the next single probe request goes.' })),
  slowUntil: Nullable(t.String({ format: 'date-time', description: 'The provider asked the endpoint to wait (Retry-After) until then.' })),
  held: Int({ description: 'Deliveries held because the endpoint is down (no attempt spent).' }),
});

const DESCRIPTION =
  'healthy, degraded (connection failures or the provider asked to slow down) or down (unreachable: deliveries held, one probe at a time with capped exponential backoff). Kept in memory: after a restart every endpoint starts healthy.';

/**
 * The health of an app's provider endpoints as this process sees them: one entry per provider
 * endpoint that carried a request since the start (none: nothing sent yet, or only the simulator).
 * `…/channels` is the name before "channel" was left to APNs broadcast channels: kept one release
 * as a deprecated alias that answers the same list under `channels`.
 */
export function endpointsAdminRoutes(services: Services) {
  const { apps, ctx } = services;
  const holds = endpointHoldsRepository(ctx.db.sql);
  const list = async (appId: string) => {
    await apps.get(appId);
    const held = await holds.heldByEndpoint(appId);
    return ctx.endpointHealth
      .list(appId)
      .map(({ appId, since, nextProbeAt, slowUntil, ...c }) => ({
        ...c,
        since: isoTime(since),
        nextProbeAt: nextProbeAt === null ? null : isoTime(nextProbeAt),
        slowUntil: slowUntil === null ? null : isoTime(slowUntil),
        held: held.get(heldKey(c.provider, c.endpoint)) ?? 0,
      }));
  };
  const params = t.Object({ appId: t.String() });
  return adminGroup(services, 'Admin: deliveries')
    .get('/apps/:appId/endpoints', async ({ params }) => ({ endpoints: await list(params.appId) }), {
      params,
      response: { 200: t.Object({ endpoints: t.Array(EndpointHealthRecord) }), ...errors(401, 404) },
      detail: { summary: "Health of an app's provider endpoints", description: DESCRIPTION },
    })
    .get('/apps/:appId/channels', async ({ params }) => ({ channels: await list(params.appId) }), {
      params,
      response: { 200: t.Object({ channels: t.Array(EndpointHealthRecord) }), ...errors(401, 404) },
      detail: {
        summary: "Health of an app's provider endpoints (deprecated name)",
        description: `Deprecated: use GET /api/admin/apps/{appId}/endpoints; this alias goes in the next release. The same list under \`channels\`. ${DESCRIPTION}`,
        deprecated: true,
      },
    });
}
