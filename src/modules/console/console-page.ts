import type { HTMLBundle } from 'bun';
import { randomBytes } from 'node:crypto';
import { CONSOLE_CSP } from '../../http/security-headers';
// Bun bundles the page with its scripts and styles at start (or into the compiled binary), so the
// console needs no build step of its own and loads nothing from outside the server.
import consolePage from '../../../web/index.html';

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * Bun.serve routes of the console: the page for `/console` and every client-side route under it;
 * the session API under `/console/api` and every other method go to the application. Elysia
 * cannot serve an HTML bundle through `app.fetch`, and Bun serves a bundle route without letting
 * us add headers: so the bundle sits at an unguessable path, the page is fetched from it once
 * (`selfOrigin` is this server) and then served from memory with its CSP as a header.
 */
export function consoleServeRoutes(appFetch: Fetch, selfOrigin: () => string): Record<string, HTMLBundle | Fetch> {
  const bundlePath = `/console-bundle-${randomBytes(16).toString('hex')}`;
  let page: Promise<{ html: string; etag: string }> | undefined;
  const load = () =>
    // Our own listener: with TLS its certificate may name another host than the loopback address.
    fetch(`${selfOrigin()}${bundlePath}`, { tls: { rejectUnauthorized: false } } as RequestInit).then(async (res) => {
      if (!res.ok) throw new Error(`console bundle answered ${res.status}`);
      return { html: await res.text(), etag: res.headers.get('etag') ?? '' };
    });

  const servePage: Fetch = async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return appFetch(request);
    page ??= load().catch((e) => {
      page = undefined;
      throw e;
    });
    const { html, etag } = await page;
    return new Response(request.method === 'HEAD' ? null : html, {
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', etag, 'content-security-policy': CONSOLE_CSP },
    });
  };

  return {
    '/': (request) =>
      request.method === 'GET' || request.method === 'HEAD' ? new Response(null, { status: 302, headers: { location: '/console' } }) : appFetch(request),
    '/console': servePage,
    '/console/*': servePage,
    '/console/api/*': (request) => appFetch(request),
    [bundlePath]: consolePage,
  };
}
