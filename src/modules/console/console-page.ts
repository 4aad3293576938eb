import type { HTMLBundle } from 'bun';
// Bun bundles the page with its scripts and styles at start (or into the compiled binary), so the
// console needs no build step of its own and loads nothing from outside the server.
import consolePage from '../../../web/index.html';

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * Bun.serve routes of the console: the page for `/console` and every client-side route under it;
 * the session API under `/console/api` still goes to the application. Elysia cannot serve an HTML
 * bundle through `app.fetch`, hence routes of Bun.serve itself.
 */
export function consoleServeRoutes(appFetch: Fetch): Record<string, HTMLBundle | Response | Fetch> {
  return {
    '/': new Response(null, { status: 302, headers: { location: '/console' } }),
    '/console': consolePage,
    '/console/*': consolePage,
    '/console/api/*': (request) => appFetch(request),
  };
}
