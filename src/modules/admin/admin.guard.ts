import { Elysia } from 'elysia';
import type { Services } from '../../services';
import { requireAdmin } from '../auth/admin-auth';

/**
 * A group of admin routes under `/api/admin`: every route in it requires the admin token (or a
 * console session, see requireAdmin).
 * @example adminGroup(services).get('/plans', () => …)
 */
export function adminGroup(services: Services, tag: string) {
  return new Elysia({ prefix: '/api/admin', detail: { tags: [tag], security: [{ adminToken: [] }] } }).onTransform(({ request }) => {
    requireAdmin(services.ctx.adminTokenHash, request, services.consoleSessions, {
      throttle: services.adminThrottle,
      address: services.clients.of(request),
    });
  });
}
