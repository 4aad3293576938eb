import { problemResponse } from '../lib/errors';
import { requestPath } from './request-path';

/** The methods the API and console use; Bun closes the connection on methods it does not know. */
const SERVED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const SERVED = new Set(SERVED_METHODS);

/**
 * Refuses, before routing, what the router would get wrong:
 * - methods no route uses (CONNECT in authority form, TRACE, …): a 405 problem instead of code
 *   that expects an origin-form URL;
 * - a path whose percent-escapes do not decode (`%zz`, or bytes that are not UTF-8): the router
 *   would hand the route no parameter, which validation reports as a missing string;
 * - a request without Host (HTTP/1.0), or a Host shorter than four characters: Elysia looks for the path from the URL's 12th character
 *   on, so `http://ab/x/y` would be routed as `/y`.
 */
export function refuseRequest(request: Request): Response | undefined {
  if (!SERVED.has(request.method)) {
    return problemResponse(405, `method ${request.method} is not supported by this server`, { allow: SERVED_METHODS.join(', ') });
  }
  const url = request.url;
  // HTTP/1.0 without Host: Bun hands over a relative URL, which no route expects.
  if (url.startsWith('/')) return problemResponse(400, 'a Host header is required');
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart !== -1 && pathStart < 11) return problemResponse(400, 'the Host header must be at least 4 characters long');
  if (url.includes('%') && !decodes(requestPath(request))) return problemResponse(400, 'the path has a malformed percent-escape (%XX of UTF-8 bytes)');
  return undefined;
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
