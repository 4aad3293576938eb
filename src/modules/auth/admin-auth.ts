import { eq } from 'drizzle-orm';
import type { Db } from '../../db/database';
import { meta } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import { generateSecret, safeEqual, sha256Hex } from '../../lib/secrets';
import { admitConsoleSession, type ConsoleSessions } from '../console/console-sessions';
import type { AuthThrottle } from './auth-throttle';

const ADMIN_TOKEN_KEY = 'admin_token_sha256';

/**
 * The admin token's hash: from `[admin] token` when set; otherwise the one generated on an earlier
 * start; otherwise a new token is generated, its hash kept, and the token returned once for printing.
 */
export function resolveAdminToken(db: Db, configured: string | undefined): { hash: string; generated?: string } {
  if (configured) return { hash: sha256Hex(configured) };
  const stored = db.select().from(meta).where(eq(meta.key, ADMIN_TOKEN_KEY)).get();
  if (stored) return { hash: stored.value };
  const token = generateSecret('adm');
  const hash = sha256Hex(token);
  db.insert(meta).values({ key: ADMIN_TOKEN_KEY, value: hash }).run();
  return { hash, generated: token };
}

/** True when `token` is the admin token (constant time). */
export function isAdminToken(tokenHash: string, token: string): boolean {
  return safeEqual(sha256Hex(token), tokenHash);
}

/**
 * Requires `Authorization: Bearer <admin token>`, or 401. Without that header, a console session
 * cookie (with its CSRF token on mutations) is accepted instead when `sessions` is given. Wrong
 * tokens count against the client's `address` in `throttle` (429 once it must wait).
 */
export function requireAdmin(
  tokenHash: string,
  request: Request,
  sessions?: ConsoleSessions,
  guard?: { throttle: AuthThrottle; address: string },
): void {
  const header = request.headers.get('authorization');
  if (!header && sessions && admitConsoleSession(sessions, request)) return;
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  if (!match) throw new HttpError(401, 'Authorization header with a Bearer admin token is required');
  guard?.throttle.check(guard.address);
  if (!isAdminToken(tokenHash, match[1]!.trim())) {
    guard?.throttle.fail(guard.address);
    throw new HttpError(401, 'invalid admin token');
  }
  guard?.throttle.succeed(guard.address);
}
