import { Elysia, t } from 'elysia';
import { Problem } from '../../http/schemas';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';

/** Liveness and readiness, without authentication, for load balancers and container health checks. */
export function healthRoutes(services: Services) {
  const storage = services.ctx.db.storage;
  const ready = async () => {
    if (!(await services.ctx.db.ready())) throw new HttpError(503, 'database not ready');
    const failing = storage.check();
    if (failing) throw new HttpError(503, failing);
    return { status: 'ready' as const };
  };
  return new Elysia({ detail: { tags: ['Operations'] } })
    .get('/healthz', () => ({ status: 'ok' as const }), {
      response: t.Object({ status: t.Literal('ok') }),
      detail: { summary: 'Liveness: the process answers' },
    })
    .get(
      '/readyz',
      ready,
      {
        response: { 200: t.Object({ status: t.Literal('ready') }), 503: Problem },
        detail: {
          summary: 'Readiness: the database is open, every migration is applied and writes succeed',
          description: '503 with the reason while writes fail for lack of space or an I/O error, until a write succeeds again.',
        },
      },
    );
}
