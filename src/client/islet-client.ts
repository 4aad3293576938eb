import createClient from 'openapi-fetch';
import type { paths } from './islet-api';

export type { paths } from './islet-api';

export interface IsletClientOptions {
  /** Where Islet listens, e.g. `https://islet.example.com`. */
  baseUrl: string;
  /** The app's App Secret, sent as `X-Service-Key` (the public API). */
  serviceKey?: string;
  /** The admin token, sent as `Authorization: Bearer …` (the admin API). */
  adminToken?: string;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: typeof fetch;
}

/**
 * A typed client of the Islet API (openapi-fetch over the generated `paths`): paths, parameters,
 * bodies and answers are checked by the compiler against the served OpenAPI document.
 * @example
 * const islet = createIsletClient({ baseUrl: 'http://localhost:8080', serviceKey: process.env.ISLET_KEY });
 * const { data, error } = await islet.POST('/api/apps/{appId}/live-activities', {
 *   params: { path: { appId: 'demo' } },
 *   body: { templateSlug: 'metric-live', attributes: { label: 'Score' }, contentState: { value: '0' } },
 * });
 */
export function createIsletClient(options: IsletClientOptions) {
  const headers: Record<string, string> = {};
  if (options.serviceKey) headers['x-service-key'] = options.serviceKey;
  if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`;
  return createClient<paths>({ baseUrl: options.baseUrl, headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
}

export type IsletClient = ReturnType<typeof createIsletClient>;
