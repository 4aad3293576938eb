import { createPrivateKey } from 'node:crypto';
import { HttpError } from '../../lib/errors';
import { endpointProblem, resolvedEndpointProblem, type OutboundPolicy } from '../../lib/outbound-policy';

/** What Islet needs to talk to APNs for one app (token-based auth, the only kind Live Activities accept). */
export interface ApnsCredentials {
  bundleId: string;
  teamId: string;
  keyId: string;
  /** The .p8 auth key, PEM (PKCS#8, P-256). */
  key: string;
  /** The default environment of the app's devices (a device may declare its own). */
  environment: 'production' | 'sandbox';
  /** Override of Apple's production host (tests, proxies). */
  endpoint?: string;
  /** Override of Apple's sandbox host (tests, proxies). */
  sandboxEndpoint?: string;
  /** Overrides of Apple's channel-management hosts (broadcast channels, docs/broadcast-channels.md). */
  channelsEndpoint?: string;
  sandboxChannelsEndpoint?: string;
  /** Overrides of the hosts broadcasts are sent to. */
  broadcastEndpoint?: string;
  sandboxBroadcastEndpoint?: string;
  /** Extra trusted CA (PEM) for those endpoints. */
  ca?: string;
}

/** The fields of a Firebase service account file that FCM HTTP v1 needs. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

export interface FcmCredentials {
  serviceAccount: ServiceAccount;
  /** Override of Google's FCM host. */
  endpoint?: string;
}

/** Bundle ids are reverse-DNS: letters, digits and hyphens in dot-separated parts (Apple allows no other). */
const BUNDLE_ID = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;
/** Apple team ids and key ids: 10 characters, A-Z and 0-9. */
const APPLE_ID = /^[A-Z0-9]{10}$/;

/**
 * Refuses APNs identifiers that are not of Apple's shape, naming the field: the bundle id becomes
 * the apns-topic header (a CR/LF there would break every push), the ids sign the provider token.
 * `names` maps each to its field name (the admin API's or the configuration's).
 */
export function checkApnsIds(
  ids: { bundleId: string; teamId: string; keyId: string },
  names = { bundleId: 'bundleId', teamId: 'teamId', keyId: 'keyId' },
): void {
  if (ids.bundleId.length > 155 || !BUNDLE_ID.test(ids.bundleId)) {
    throw new HttpError(400, `${names.bundleId} must be a reverse-DNS bundle id such as com.example.app (letters, digits, - and .)`);
  }
  if (!APPLE_ID.test(ids.teamId)) throw new HttpError(400, `${names.teamId} must be 10 characters of A-Z and 0-9`);
  if (!APPLE_ID.test(ids.keyId)) throw new HttpError(400, `${names.keyId} must be 10 characters of A-Z and 0-9`);
}

/** Refuses an APNs key that is not an EC P-256 private key, naming the field. */
export function checkApnsKey(pem: string, field = 'key'): void {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return;
  } catch {
    // fall through to the one message below
  }
  throw new HttpError(400, `${field} must be an APNs auth key (.p8, PKCS#8 EC P-256 private key in PEM)`);
}

/** Refuses a service account without what FCM needs, naming the field. */
export function checkServiceAccount(value: unknown, field = 'serviceAccount'): ServiceAccount {
  if (typeof value !== 'object' || value === null) throw new HttpError(400, `${field} must be a service account JSON object`);
  const account = value as Record<string, unknown>;
  for (const key of ['project_id', 'client_email', 'private_key'] as const) {
    if (typeof account[key] !== 'string' || account[key] === '') throw new HttpError(400, `${field}.${key} is required`);
  }
  if (account.token_uri !== undefined && typeof account.token_uri !== 'string')
    throw new HttpError(400, `${field}.token_uri must be a string`);
  try {
    createPrivateKey(account.private_key as string);
  } catch {
    throw new HttpError(400, `${field}.private_key is not a PEM private key`);
  }
  return {
    project_id: account.project_id as string,
    client_email: account.client_email as string,
    private_key: account.private_key as string,
    token_uri: account.token_uri as string | undefined,
  };
}

/**
 * Refuses a provider endpoint (APNs or FCM `endpoint`, a service account's `token_uri`) that the
 * outbound policy forbids, with a 400 naming the field; the name is resolved too. Applied to each
 * URL field on its own, so a new endpoint field only needs one more call.
 * @example await checkEndpoint(body.endpoint, 'endpoint', { allowPrivate: false })
 */
export async function checkEndpoint(url: string | undefined, field: string, policy: OutboundPolicy): Promise<void> {
  if (url === undefined) return;
  const problem = await resolvedEndpointProblem(url, field, policy);
  if (problem) throw new HttpError(400, problem);
}

/** The same check without DNS, for configuration read at start (a synchronous path). */
export function checkEndpointSync(url: string | undefined, field: string, policy: OutboundPolicy): void {
  if (url === undefined) return;
  const problem = endpointProblem(url, field, policy);
  if (problem) throw new HttpError(400, problem);
}
