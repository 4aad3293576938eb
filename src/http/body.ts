import { problemResponse } from '../lib/errors';

/** Request bodies larger than this are refused with 413 before they are read. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** DELETE too: ending a Live Activity takes an optional JSON body (and must work without one). */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Checks a request before its body is read: a declared length over the limit is 413, and a body
 * that is not declared as JSON is 415 (the API speaks only JSON; a form-encoded body would
 * otherwise surface as a confusing validation error). Chunked bodies without a length are capped
 * by the server's own limit (`maxRequestBodySize`). Returns the error response, or undefined.
 */
export function checkRequestBody(request: Request): Response | undefined {
  if (!WITH_BODY.has(request.method)) return undefined;
  const length = request.headers.get('content-length');
  if (length !== null && Number(length) > BODY_LIMIT_BYTES) {
    return problemResponse(413, `request body exceeds ${BODY_LIMIT_BYTES / 1024} KiB`);
  }
  const type = request.headers.get('content-type');
  const hasBody = length !== null ? length !== '0' : request.body !== null;
  if (hasBody && !(type ?? '').toLowerCase().includes('json')) {
    return problemResponse(415, 'Content-Type must be application/json');
  }
  return undefined;
}
