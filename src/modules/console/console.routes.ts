import { Elysia, t } from 'elysia';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { consoleActor, isAdminToken } from '../auth/admin-auth';
import { eventStream } from './console-events';
import { CSRF_HEADER, readCookie, SESSION_COOKIE, type ConsoleSession } from '../auth/console-sessions';

/**
 * Console sign-in: the admin token is exchanged for a session cookie (HttpOnly, SameSite=Strict,
 * Secure when the public address is https) plus a CSRF token the page sends on mutations.
 * Under `/console`, so the OpenAPI document leaves these out: they are the console's, not the API's.
 */
export function consoleRoutes(services: Services) {
  const { consoleSessions: sessions, adminThrottle: throttle, clients, ctx } = services;
  const secure = ctx.config.server.public_url ? ctx.config.server.public_url.toLowerCase().startsWith('https://') : Boolean(ctx.config.server.tls_cert);
  const cookie = (value: string, maxAgeSeconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
  const view = (session: ConsoleSession) => ({ csrfToken: session.csrfToken, expiresAt: isoTime(session.expiresAt) });

  return new Elysia({ prefix: '/console/api', detail: { hide: true } })
    .onAfterHandle(({ set }) => {
      set.headers['cache-control'] = 'no-store';
    })
    .post(
      '/session',
      async ({ body, set, request }) => {
        const address = clients.of(request);
        throttle.check(address);
        const tokenHash = await ctx.adminTokenHash();
        if (!isAdminToken(tokenHash, body.token.trim())) {
          await throttle.fail(address);
          ctx.logger.warn('console sign-in refused', { address });
          throw new HttpError(401, 'invalid admin token');
        }
        await throttle.succeed(address);
        const { id, session } = await sessions.create(tokenHash);
        await services.audit.record({ actor: consoleActor(id), address, action: 'console.sign-in', target: 'console' });
        set.headers['set-cookie'] = cookie(id, Math.floor(sessions.lifetimeMs / 1000));
        return view(session);
      },
      { body: t.Object({ token: t.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false }) },
    )
    .get('/events', async ({ request, server }) => {
      const id = readCookie(request, SESSION_COOKIE);
      if (!id || !(await sessions.find(id, await ctx.adminTokenHash()))) throw new HttpError(401, 'not signed in');
      // A live stream is never idle in Bun's sense: it ends when the page goes or the session does.
      server?.timeout(request, 0);
      return eventStream(ctx.coordination.wakeUps, request.signal, async () => (await sessions.find(id, await ctx.adminTokenHash())) !== undefined);
    })
    .get('/session', async ({ request }) => {
      const id = readCookie(request, SESSION_COOKIE);
      const session = id ? await sessions.find(id, await ctx.adminTokenHash()) : undefined;
      if (!session) throw new HttpError(401, 'not signed in');
      return view(session);
    })
    .delete('/session', async ({ request, set }) => {
      const id = readCookie(request, SESSION_COOKIE);
      const session = id ? await sessions.find(id, await ctx.adminTokenHash()) : undefined;
      if (id && session) {
        // A live session needs its CSRF token to be ended, so another site cannot sign people out.
        if (!sessions.checkCsrf(session, request.headers.get(CSRF_HEADER))) throw new HttpError(403, 'missing or invalid CSRF token');
        await sessions.destroy(id);
      }
      set.headers['set-cookie'] = cookie('', 0);
      return { success: true as const };
    });
}
