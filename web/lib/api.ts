/**
 * The console's only way to the server. Admin calls ride on the HttpOnly session cookie and send
 * the session's CSRF token on mutations; public API calls act as the app's backend with its App
 * Secret, exactly as a customer's server would.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export interface SessionInfo {
  csrfToken: string;
  expiresAt: string;
}

let csrfToken: string | null = null;
const secretsCache = new Map<string, Promise<{ appSecret: string; signingSecret: string }>>();
const signedOutListeners = new Set<() => void>();

/** Called when the server says the session is gone (expired, or signed out in another tab). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function call<T>(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<T> {
  const init: RequestInit = { method, headers: { accept: 'application/json', ...headers }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Is Islet running?');
  }
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const detail = (data as { detail?: string } | undefined)?.detail ?? `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, detail);
  }
  return data as T;
}

export const session = {
  /** The current session, or null when signed out. */
  async load(): Promise<SessionInfo | null> {
    try {
      const info = await call<SessionInfo>('GET', '/console/api/session', undefined, {});
      csrfToken = info.csrfToken;
      return info;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return null;
      throw e;
    }
  },
  async signIn(token: string): Promise<SessionInfo> {
    const info = await call<SessionInfo>('POST', '/console/api/session', { token }, {});
    csrfToken = info.csrfToken;
    return info;
  },
  async signOut(): Promise<void> {
    await call('DELETE', '/console/api/session', undefined, csrfToken ? { 'x-csrf-token': csrfToken } : {});
    csrfToken = null;
    secretsCache.clear();
  },
};

/**
 * A call to the admin API (`/api/admin` + path) with the session cookie.
 * @example const { apps } = await admin<{ apps: AppView[] }>('GET', '/apps');
 */
export async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = method === 'GET' || !csrfToken ? {} : { 'x-csrf-token': csrfToken };
  try {
    return await call<T>(method, `/api/admin${path}`, body, headers);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      csrfToken = null;
      for (const listener of signedOutListeners) listener();
    }
    throw e;
  }
}

/** The app's secrets, fetched once per page load (and again after a rotation). */
export function appSecrets(appId: string) {
  let secrets = secretsCache.get(appId);
  if (!secrets) {
    secrets = admin<{ appSecret: string; signingSecret: string }>('GET', `/apps/${encodeURIComponent(appId)}/secrets`);
    secrets.catch(() => secretsCache.delete(appId));
    secretsCache.set(appId, secrets);
  }
  return secrets;
}

export function forgetSecrets(appId: string): void {
  secretsCache.delete(appId);
}

/**
 * A call to the public API (`/api/apps/{appId}` + path) as the app's backend, with its App Secret.
 * @example await publicApi('demo', 'POST', '/live-activities', { templateSlug, contentState });
 */
export async function publicApi<T = unknown>(appId: string, method: string, path: string, body?: unknown): Promise<T> {
  const { appSecret } = await appSecrets(appId);
  return call<T>(method, `/api/apps/${encodeURIComponent(appId)}${path}`, body, { 'x-service-key': appSecret });
}

/** A query string from the defined values only. */
export function query(params: Record<string, string | number | undefined | null | false>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '' && v !== false);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}
