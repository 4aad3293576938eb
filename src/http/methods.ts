import { problemResponse } from '../lib/errors';

/** The methods the API and console use; Bun closes the connection on methods it does not know. */
const SERVED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const SERVED = new Set(SERVED_METHODS);

/**
 * Refuses methods no route uses (CONNECT in authority form, TRACE, …) before routing, so they get
 * a problem answer instead of reaching code that expects an origin-form URL.
 */
export function refuseMethod(request: Request): Response | undefined {
  if (SERVED.has(request.method)) return undefined;
  return problemResponse(405, `method ${request.method} is not supported by this server`, { allow: SERVED_METHODS.join(', ') });
}
