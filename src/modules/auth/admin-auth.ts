import { ConfigError } from '../../config/config.load';
import { HttpError } from '../../lib/errors';
import { generateSecret, safeEqual, sha256Hex } from '../../lib/secrets';
import { admitConsoleSession, type ConsoleSessions } from './console-sessions';
import type { AuthThrottle } from './auth-throttle';
import type { MetaRepository } from './meta.repository';

const ADMIN_TOKEN_KEY = 'admin_token_sha256';

/**
 * The admin token's hash: from `[admin] token` when set; otherwise the one generated on an earlier
 * start; otherwise a new token is generated, its hash kept, and the token returned once for printing.
 * `current()` reads the stored hash at each call (one primary-key lookup per admin request), so
 * `islet admin-token reset` run beside a server takes effect at once.
 */
export async function resolveAdminToken(meta: MetaRepository, configured: string | undefined): Promise<{ current: () => Promise<string>; generated?: string }> {
  if (configured) {
    const hash = sha256Hex(configured);
    return { current: async () => hash };
  }
  let generated: string | undefined;
  if ((await meta.get(ADMIN_TOKEN_KEY)) === undefined) {
    generated = generateSecret('adm');
    await meta.put(ADMIN_TOKEN_KEY, sha256Hex(generated));
  }
  // Never empty: a hash no token has, should the row vanish.
  return { current: async () => (await meta.get(ADMIN_TOKEN_KEY)) ?? 'none', generated };
}

/**
 * `islet admin-token reset`: a new generated admin token replaces the stored one (the old one stops
 * working, also on a running server). Refused when `[admin] token` is set: the configuration wins.
 */
export async function resetAdminToken(meta: MetaRepository, configured: string | undefined): Promise<string> {
  if (configured) throw new ConfigError(['the admin token is set by [admin] token (or ISLET_ADMIN_TOKEN): change it there']);
  const token = generateSecret('adm');
  await meta.put(ADMIN_TOKEN_KEY, sha256Hex(token));
  return token;
}

/** True when `token` is the admin token (constant time). */
export function isAdminToken(tokenHash: string, token: string): boolean {
  return safeEqual(sha256Hex(token), tokenHash);
}

/**
 * Requires `Authorization: Bearer <admin token>`, or 401. Without that header, a console session
 * cookie (with its CSRF token on mutations) is accepted instead when `sessions` is given. Wrong
 * tokens count against the client's `address` in `throttle` (429 once it must wait).
 * Returns who the request is, for the audit log: `admin-token:<8 hex>` or `console:<8 hex>`,
 * the start of a SHA-256 (of the token, of the session id), never the secret itself.
 */
export async function requireAdmin(
  currentHash: () => Promise<string>,
  request: Request,
  sessions?: ConsoleSessions,
  guard?: { throttle: AuthThrottle; address: string },
): Promise<string> {
  const header = request.headers.get('authorization');
  if (!header && sessions) {
    const session = await admitConsoleSession(sessions, request, await currentHash());
    if (session) return consoleActor(session);
  }
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  if (!match) throw new HttpError(401, 'Authorization header with a Bearer admin token is required');
  const tokenHash = await currentHash();
  guard?.throttle.check(guard.address);
  if (!isAdminToken(tokenHash, match[1]!.trim())) {
    await guard?.throttle.fail(guard.address);
    throw new HttpError(401, 'invalid admin token');
  }
  await guard?.throttle.succeed(guard.address);
  return `admin-token:${tokenHash.slice(0, 8)}`;
}

/** The audit actor of a console session, from its id (the cookie value). */
export function consoleActor(sessionId: string): string {
  return `console:${sha256Hex(sessionId).slice(0, 8)}`;
}
