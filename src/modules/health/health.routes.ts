import { Elysia, t } from 'elysia';
import { isDatabaseReady } from '../../db/database';
import { Problem } from '../../http/schemas';
import { problemResponse } from '../../lib/errors';
import type { Services } from '../../services';

/** Liveness and readiness, without authentication, for load balancers and container health checks. */
export function healthRoutes(services: Services, migrationsFolder?: string) {
  return new Elysia({ detail: { tags: ['Operations'] } })
    .get('/healthz', () => ({ status: 'ok' as const }), {
      response: t.Object({ status: t.Literal('ok') }),
      detail: { summary: 'Liveness: the process answers' },
    })
    .get(
      '/readyz',
      () => (isDatabaseReady(services.ctx.db, migrationsFolder) ? { status: 'ready' as const } : problemResponse(503, 'database not ready')),
      {
        response: { 200: t.Object({ status: t.Literal('ready') }), 503: Problem },
        detail: { summary: 'Readiness: the database is open and every migration is applied' },
      },
    );
}
