import { randomBytes } from 'node:crypto';
import type { SessionStore, StoredSession } from '../../coordination/coordination';
import type { Clock } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import { safeEqual, sha256Hex } from '../../lib/secrets';

export const SESSION_COOKIE = 'islet_session';
export const CSRF_HEADER = 'X-CSRF-Token';
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** A console session; a reset admin token (`islet admin-token reset`) ends it. */
export type ConsoleSession = StoredSession;

/**
 * Console sign-in sessions, kept in the coordination's session store (in memory with SQLite: a
 * restart signs everybody out; a table with several instances on PostgreSQL). The store is keyed by the SHA-256 of the session id, so a heap dump or a
 * table does not hand out live cookies.
 * @example const s = consoleSessions(clock, ctx.coordination.sessions()); const { id, session } = await s.create(hash); await s.find(id, hash);
 */
export function consoleSessions(clock: Clock, store: SessionStore, lifetimeMs = SESSION_LIFETIME_MS) {
  return {
    lifetimeMs,

    /** Opens a session; the returned id goes into the cookie and is not kept. */
    async create(tokenHash: string): Promise<{ id: string; session: ConsoleSession }> {
      const now = clock.now();
      const id = randomBytes(32).toString('base64url');
      const session = { csrfToken: randomBytes(24).toString('base64url'), expiresAt: now + lifetimeMs, tokenHash };
      await store.set(sha256Hex(id), session, now);
      return { id, session };
    },

    /** The live session with this id, or undefined when unknown, signed out, expired or of a replaced admin token. */
    async find(id: string, currentTokenHash: string): Promise<ConsoleSession | undefined> {
      const hash = sha256Hex(id);
      const session = await store.get(hash);
      if (!session) return undefined;
      if (session.expiresAt <= clock.now() || session.tokenHash !== currentTokenHash) {
        await store.delete(hash);
        return undefined;
      }
      return session;
    },

    /** True when `token` is the session's CSRF token (constant time). */
    checkCsrf(session: ConsoleSession, token: string | null): boolean {
      return token !== null && safeEqual(token, session.csrfToken);
    },

    /** Signs a session out; it is refused from then on. */
    async destroy(id: string): Promise<void> {
      await store.delete(sha256Hex(id));
    },
  };
}

export type ConsoleSessions = ReturnType<typeof consoleSessions>;

/** The value of one cookie from a `Cookie` header, or undefined. */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Admits a request that carries the console's session cookie: the session must be live, and a
 * mutating method must also send the session's CSRF token in `X-CSRF-Token` (a header another
 * site cannot set without a CORS preflight, on top of the SameSite=Strict cookie).
 * Returns the session id, or undefined when the request has no session cookie at all.
 */
export async function admitConsoleSession(sessions: ConsoleSessions, request: Request, currentTokenHash: string): Promise<string | undefined> {
  const id = readCookie(request, SESSION_COOKIE);
  if (!id) return undefined;
  const session = await sessions.find(id, currentTokenHash);
  if (!session) throw new HttpError(401, 'console session expired or signed out; sign in again');
  if (MUTATING.has(request.method) && !sessions.checkCsrf(session, request.headers.get(CSRF_HEADER))) {
    throw new HttpError(403, 'missing or invalid CSRF token');
  }
  return id;
}
