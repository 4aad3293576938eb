import { Elysia } from 'elysia';
import type { Services } from '../../services';
import { requireAdmin } from '../auth/admin-auth';

/**
 * A group of admin routes under `/api/admin`: every route in it requires the admin token (or a
 * console session, see requireAdmin), and every change it makes is written to the audit log
 * (the actions are listed in audit/audit.actions.ts).
 * @example adminGroup(services).get('/plans', () => …)
 */
export function adminGroup(services: Services, tag: string) {
  const { audit } = services;
  return new Elysia({ prefix: '/api/admin', detail: { tags: [tag], security: [{ adminToken: [] }] } })
    .onTransform(async ({ request }) => {
      const actor = await requireAdmin(services.ctx.adminTokenHash, request, services.consoleSessions, {
        throttle: services.adminThrottle,
        address: services.clients.of(request),
      });
      audit.admit(request, actor);
    })
    .onAfterHandle(async ({ request, route, params, body, responseValue, path }) => {
      if (request.method === 'GET' || request.method === 'HEAD') return;
      await audit.recordRequest(request, {
        method: request.method,
        route,
        path,
        params: (params ?? {}) as Record<string, string | undefined>,
        body,
        answer: responseValue,
        address: services.clients.of(request),
      });
    });
}
