import { createPrivateKey } from 'node:crypto';
import { HttpError } from '../../lib/errors';

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
