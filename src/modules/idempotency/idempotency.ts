import { createHash } from 'node:crypto';
import type { AppContext } from '../../context';
import { requestPath } from '../../http/request-path';
import { HttpError } from '../../lib/errors';
import { idempotencyRepository } from './idempotency.repository';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Printable ASCII (spaces inside allowed), 1 to 255 characters. */
const KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The public API: the admin API and the console have their own audit trail and are not covered. */
const PUBLIC_APP_PATH = /^\/api\/apps\/[^/]+(?:\/|$)/;

/** SHA-256 of method, path and the parsed body: what makes two requests "the same". */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method}\n${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
}

/**
 * Idempotency-Key on the public mutating routes. `begin` runs after authentication and body
 * validation (a global beforeHandle) and is given the app the request was authenticated for:
 * without one (refused, or a route that authenticates later) the key is not looked at, so a 401
 * is never kept nor replayed and an unknown app id stores nothing. It takes the key, or answers the stored response
 * (`Idempotent-Replayed: true`), 409 while the first request runs, 422 for another request under
 * the key. `finish` runs on every answer (a global mapResponse) and stores it before it is sent,
 * so a client never sees an answer that a repeat would not replay.
 *
 * Not in the work's own transaction: writes go through the group commit, which resolves after its
 * COMMIT, and the answer is shaped by the route after that. The gap is a crash between the work's
 * COMMIT and the answer's write, in which the client gets no answer; the key is then released at
 * the next start of the server (`releaseAllRunning`, in startServer) and a retry runs the request again.
 */
export function idempotency(ctx: AppContext) {
  const repo = idempotencyRepository(ctx.db.sql);
  const taken = new WeakMap<Request, { appId: string; key: string }>();

  return {
    /** Synchronous when the request cannot take a key (most requests): no promise to wait for. */
    begin(request: Request, appId: string | undefined, body: unknown): Promise<Response | undefined> | undefined {
      const key = request.headers.get(IDEMPOTENCY_HEADER);
      if (key === null || appId === undefined || !MUTATING.has(request.method)) return undefined;
      const path = requestPath(request);
      if (!PUBLIC_APP_PATH.test(path)) return undefined;
      if (!KEY.test(key)) throw new HttpError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters');
      return take(request, appId, key, requestFingerprint(request.method, path, body));
    },

    /** Stores the answer of a request that took a key (not 429 or 5xx: those say "try again"), then lets it go out. */
    // Synchronous when the request took no key: Elysia would take a returned promise for the answer.
    finish(request: Request, value: unknown, status: unknown): Promise<Response> | undefined {
      const held = taken.get(request);
      if (!held) return undefined;
      taken.delete(request);
      return store(held, value, status);
    },
  };

  async function take(request: Request, appId: string, key: string, fingerprint: string): Promise<Response | undefined> {
    const now = ctx.clock.now();
    if (await repo.claim(appId, key, fingerprint, now, now - IDEMPOTENCY_TTL_MS)) {
      taken.set(request, { appId, key });
      return undefined;
    }
    const row = (await repo.find(appId, key))!;
    if (row.fingerprint !== fingerprint) {
      throw new HttpError(422, 'Idempotency-Key was already used with a different request (method, path or body)');
    }
    if (row.state === 'running') throw new HttpError(409, 'a request with this Idempotency-Key is still being processed');
    return new Response(row.body, {
      status: row.status!,
      headers: { ...(row.contentType ? { 'content-type': row.contentType } : {}), 'idempotent-replayed': 'true' },
    });
  }

  async function store(held: { appId: string; key: string }, value: unknown, status: unknown): Promise<Response> {
    const response =
      value instanceof Response
        ? value
        : new Response(JSON.stringify(value), { status: typeof status === 'number' ? status : 200, headers: { 'content-type': 'application/json' } });
    if (response.status === 429 || response.status >= 500) {
      await repo.release(held.appId, held.key);
      return response;
    }
    const body = await response.clone().text();
    await repo.complete(held.appId, held.key, { status: response.status, contentType: response.headers.get('content-type'), body });
    return response;
  }
}

export type Idempotency = ReturnType<typeof idempotency>;
