import type { AppContext } from '../../context';
import type { ClientAddresses } from '../../http/client-address';
import { echoed, HttpError, type ProblemExtensions } from '../../lib/errors';
import { hmacSha256Hex, safeEqual, sha256Hex } from '../../lib/secrets';
import { appRowCache } from './app-row-cache';
import type { AppRow } from './apps.types';
import type { AppsService } from './apps.service';
import type { AuthThrottle } from '../auth/auth-throttle';

const EMPTY_HASH = sha256Hex('');

export const SERVICE_KEY_HEADER = 'X-Service-Key';
export const END_USER_SIGNATURE_HEADER = 'X-End-User-Signature';
/** The 401 of an endpoint a device may call itself, without either credential: it names both ways. */
export const BOTH_HEADERS_REQUIRED = `${SERVICE_KEY_HEADER} or ${END_USER_SIGNATURE_HEADER} header is required`;

/**
 * Authentication of the public API: the app's backend sends its App Secret in `X-Service-Key`;
 * a device may instead sign its end user id with the Signing Secret (`X-End-User-Signature`).
 * An unknown app and a wrong key get the same answer, so app ids cannot be probed; only a key that
 * is the App Secret of another app (a typo in the path) is told which app it belongs to, which
 * its holder knows already (see keyHint).
 */
export function serviceAuth(ctx: AppContext, apps: AppsService, clients: ClientAddresses, throttle: AuthThrottle) {
  const limit = ctx.coordination.rateLimiter('service-api', ctx.config.server.rate_limit_per_second, ctx.clock);
  const authenticated = new WeakMap<Request, AppRow>();
  const rows = appRowCache(ctx, apps.find);

  const admit = async (request: Request, row: AppRow): Promise<AppRow> => {
    await throttle.succeed(clients.of(request));
    const wait = limit(row.id);
    if (wait > 0) throw new HttpError(429, 'rate limit exceeded', { 'retry-after': String(wait) });
    authenticated.set(request, row);
    return row;
  };

  /** A failed attempt counts against the client's address (guessing is throttled), then 401. */
  const refuse = async (request: Request, detail: string, extensions: ProblemExtensions = {}): Promise<never> => {
    await throttle.fail(clients.of(request));
    throw new HttpError(401, detail, {}, extensions);
  };

  /**
   * What a refused key is told beyond `invalid service key`: the app id it was sent for and, when
   * the key is the App Secret of another app, that app (its holder knows it; `/api/apps/shp/…` sent
   * with shop's key is a typo). Otherwise an unknown app and a wrong key read the same. Every
   * refusal looks the key up, so both take the same time; each still counts as a failed attempt.
   */
  const keyHint = async (appId: string, key: string): Promise<ProblemExtensions> => {
    const hash = sha256Hex(key);
    const owner = (await apps.list()).find((app) => safeEqual(hash, app.appSecretHash));
    if (owner && owner.id !== appId)
      return { appId: echoed(appId), keyAppId: owner.id, hint: `${SERVICE_KEY_HEADER} is the App Secret of app ${owner.id}, not of ${echoed(appId)}: check the app id in the path` };
    return {
      appId: echoed(appId),
      hint: `either no app has the id ${echoed(appId)} or ${SERVICE_KEY_HEADER} is not its App Secret; the answer is the same for both, so that app ids cannot be probed`,
    };
  };

  const byKey = async (request: Request, appId: string, key: string): Promise<AppRow> => {
    throttle.check(clients.of(request));
    const hash = sha256Hex(key);
    // Compare against a hash even when the app is unknown, so both paths take the same time.
    const { row, accepted } = await rows.check(appId, (r) => safeEqual(hash, r?.appSecretHash ?? EMPTY_HASH) && r !== undefined);
    if (!row || !accepted) return refuse(request, 'invalid service key', await keyHint(appId, key));
    return row;
  };

  const serviceAuthApi = {
    /**
     * Route option that authenticates with `X-Service-Key` before the body is validated (Elysia's
     * transform phase), so an unauthenticated caller gets 401 whatever it sent.
     * @example .post('/api/apps/:appId/x', ({ request }) => auth.appOf(request), { transform: auth.requireKey })
     */
    requireKey: async ({ request, params }: { request: Request; params: Record<string, string | undefined> }): Promise<void> => {
      await serviceAuthApi.app(request, params.appId ?? '');
    },

    /** The app a request was authenticated for, or undefined before (or without) authentication. */
    authenticatedApp: (request: Request): AppRow | undefined => authenticated.get(request),

    /**
     * The app a request was authenticated for (by `app`, `appOrEndUser` or `requireKey`). Its row
     * comes from the cache of app rows: whether a channel is paused may be a few seconds old there
     * (app-row-cache.ts); read that from the repository.
     */
    appOf(request: Request): AppRow {
      const row = authenticated.get(request);
      if (!row) throw new Error('request was not authenticated');
      return row;
    },

    /** The app whose App Secret is in `X-Service-Key`, or 401. */
    async app(request: Request, appId: string): Promise<AppRow> {
      const key = request.headers.get(SERVICE_KEY_HEADER);
      if (!key) throw new HttpError(401, `${SERVICE_KEY_HEADER} header is required`);
      return admit(request, await byKey(request, appId, key));
    },

    /** Like `app`, or a valid `X-End-User-Signature` = hex(HMAC-SHA256(Signing Secret, endUserId)). */
    async appOrEndUser(request: Request, appId: string, endUserId: string | undefined): Promise<AppRow> {
      const signature = request.headers.get(END_USER_SIGNATURE_HEADER);
      if (!signature && !request.headers.get(SERVICE_KEY_HEADER)) throw new HttpError(401, BOTH_HEADERS_REQUIRED);
      if (request.headers.get(SERVICE_KEY_HEADER) || !signature) return serviceAuthApi.app(request, appId);
      throttle.check(clients.of(request));
      const lower = signature.toLowerCase();
      const signed = (r: AppRow | undefined) => safeEqual(lower, r && endUserId !== undefined ? hmacSha256Hex(apps.secrets(r).signingSecret, endUserId) : '');
      const { row, accepted } = await rows.check(appId, signed);
      if (!row || endUserId === undefined || !accepted) return refuse(request, 'invalid end user signature');
      return admit(request, row);
    },
  };
  return serviceAuthApi;
}

export type ServiceAuth = ReturnType<typeof serviceAuth>;
