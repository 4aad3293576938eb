import type { HTMLBundle } from 'bun';
import { randomBytes } from 'node:crypto';
import { precompress, servePrecompressed, type Precompressed } from '../../http/precompressed';
import { CONSOLE_CSP } from '../../http/security-headers';
// Bun bundles the page with its scripts and styles at start (or into the compiled binary), so the
// console needs no build step of its own and loads nothing from outside the server.
import consolePage from '../../../web/index.html';

type Fetch = (request: Request) => Response | Promise<Response>;

/** Where the page's scripts and styles are served from, compressed (Bun serves its own copies uncompressed). */
const ASSETS = '/console/_assets/';
/** Same-origin paths the page's tags load (`src="/chunk-….js"`, `href="/chunk-….css"`), not `//host/…`. */
const ASSET_REF = /(src|href)="\/([^"/][^"]*)"/g;

interface ConsoleFiles {
  page: Precompressed;
  assets: Map<string, Precompressed>;
}

/**
 * Bun.serve routes of the console: the page for `/console` and every client-side route under it,
 * its scripts and styles under `/console/_assets/`; the session API under `/console/api` and every
 * other method go to the application. Elysia cannot serve an HTML bundle through `app.fetch`, and
 * Bun serves a bundle (and its hashed scripts and styles) without letting us add headers or
 * compression: so the bundle sits at an unguessable path, the page and the files it names are
 * fetched from it once (`selfOrigin` is this server), compressed once with brotli and gzip, and
 * then served from memory with ETags (304 when unchanged) and, for the page, its CSP as a header.
 */
export function consoleServeRoutes(appFetch: Fetch, selfOrigin: () => string): Record<string, HTMLBundle | Fetch> {
  const bundlePath = `/console-bundle-${randomBytes(16).toString('hex')}`;
  // Our own listener: with TLS its certificate may name another host than the loopback address.
  const get = async (path: string) => {
    const res = await fetch(`${selfOrigin()}${path}`, { headers: { 'accept-encoding': 'identity' }, tls: { rejectUnauthorized: false } } as RequestInit);
    if (!res.ok) throw new Error(`console bundle ${path} answered ${res.status}`);
    return res;
  };
  const load = async (): Promise<ConsoleFiles> => {
    const html = await (await get(bundlePath)).text();
    const assets = new Map<string, Precompressed>();
    for (const name of new Set([...html.matchAll(ASSET_REF)].map((m) => m[2]!))) {
      const res = await get(`/${name}`);
      const type = res.headers.get('content-type') ?? 'application/octet-stream';
      // The names carry a content hash: a new build names new files, so these never change.
      assets.set(name, await precompress(new Uint8Array(await res.arrayBuffer()), type, 'public, max-age=31536000, immutable'));
    }
    const page = html.replace(ASSET_REF, (_, attribute: string, name: string) => `${attribute}="${ASSETS}${name}"`);
    return { page: await precompress(page, 'text/html; charset=utf-8', 'no-cache'), assets };
  };
  let files: Promise<ConsoleFiles> | undefined;
  const loaded = () =>
    (files ??= load().catch((e) => {
      files = undefined;
      throw e;
    }));

  const servePage: Fetch = async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return appFetch(request);
    const response = servePrecompressed(request, (await loaded()).page);
    response.headers.set('content-security-policy', CONSOLE_CSP);
    return response;
  };
  const serveAsset: Fetch = async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return appFetch(request);
    const asset = (await loaded()).assets.get(new URL(request.url).pathname.slice(ASSETS.length));
    return asset ? servePrecompressed(request, asset) : appFetch(request);
  };

  return {
    '/': (request) =>
      request.method === 'GET' || request.method === 'HEAD' ? new Response(null, { status: 302, headers: { location: '/console' } }) : appFetch(request),
    '/console': servePage,
    '/console/*': servePage,
    [`${ASSETS}*`]: serveAsset,
    '/console/api/*': (request) => appFetch(request),
    [bundlePath]: consolePage,
  };
}
