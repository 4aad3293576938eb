import { ValidationError } from 'elysia';
import { databaseFailureAnswer } from '../db/failures';
import { HttpError, problemResponse } from '../lib/errors';
import type { Logger } from '../lib/logger';
import { requestPath } from './request-path';
import { validationDetail } from './validation-detail';

/**
 * The one place every error becomes a `{title, status, detail}` response. Known errors keep their
 * detail; anything else is logged with the request id and answered with a generic 500.
 */
export function errorResponse(
  code: string | number,
  error: unknown,
  request: Request,
  requestId: string,
  allowedMethods: (request: Request) => string[],
  logger: Logger,
): Response {
  // Elysia wraps what a parse hook throws (readJsonBody's limits) in its ParseError.
  const known = code === 'PARSE' && error instanceof Error && error.cause instanceof HttpError ? error.cause : error;
  if (known instanceof HttpError) return problemResponse(known.status, known.detail, known.headers, known.extensions);
  if (error instanceof ValidationError) {
    return problemResponse(400, validationDetail(error.all as never, error.type));
  }
  if (code === 'NOT_FOUND') {
    const allowed = allowedMethods(request);
    if (allowed.length > 0) {
      return problemResponse(405, `method ${request.method} is not allowed here; use ${allowed.join(', ')}`, {
        allow: allowed.join(', '),
      });
    }
    return problemResponse(404, `no route for ${request.method} ${requestPath(request)}`);
  }
  if (code === 'PARSE') return problemResponse(400, 'request body is not valid JSON');
  // Disk full, an I/O error or PostgreSQL unreachable: the request stored nothing; the operator is
  // told once (the store's storage health), not with a stack per request.
  const database = databaseFailureAnswer(error);
  if (database) return problemResponse(database.status, database.detail);
  logger.error('internal error', {
    requestId,
    method: request.method,
    path: requestPath(request),
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return problemResponse(500, `internal error; see the server log for request ${requestId}`);
}

/**
 * Builds the "which methods does this path allow" lookup from the registered routes, so an
 * existing path with the wrong method answers 405 instead of 404.
 */
export function methodLookup(routes: { method: string; path: string }[]): (request: Request) => string[] {
  const patterns = routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({
      method: r.method,
      regex: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}/?$`),
    }));
  return (request) => {
    const path = requestPath(request);
    return [...new Set(patterns.filter((p) => p.method !== request.method && p.regex.test(path)).map((p) => p.method))];
  };
}
