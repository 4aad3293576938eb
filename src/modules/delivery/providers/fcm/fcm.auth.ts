import { createHash } from 'node:crypto';
import type { JWT } from 'google-auth-library';
import type { ServiceAccount } from '../../../apps/credentials';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** The token URL google-auth-library hard-codes, which a service account's token_uri replaces. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/**
 * OAuth2 access tokens for service accounts, one google-auth-library client per account, which
 * caches each token and refreshes it before it expires.
 */
export class FcmAccessTokens {
  private readonly clients = new Map<string, JWT>();

  /** A valid access token for the account; rejects when the token endpoint refuses or fails. */
  async get(account: ServiceAccount): Promise<string> {
    const { token } = await (await this.client(account)).getAccessToken();
    if (!token) throw new Error('the token endpoint returned no access token');
    return token;
  }

  /** Forgets the cached token (the provider refused it), so the next `get` asks for a new one. */
  forget(account: ServiceAccount): void {
    this.clients.delete(accountKey(account));
  }

  private async client(account: ServiceAccount): Promise<JWT> {
    const key = accountKey(account);
    let client = this.clients.get(key);
    if (!client) {
      client = await serviceAccountClient(account);
      // Two first sends at once both made one: keep the first, so that its cached token is shared.
      client = this.clients.get(key) ?? client;
      this.clients.set(key, client);
    }
    return client;
  }
}

/**
 * A JWT client for the account that honours its `token_uri`: google-auth-library always posts to
 * Google's token URL and signs that URL as the audience, so the audience is set as an extra claim
 * and a request interceptor sends the exchange to the account's URL instead.
 * google-auth-library (with gaxios, gcp-metadata, json-bigint: ~200 KB of the bundle) is loaded at
 * the first FCM token, not at every start of the server (issue 49).
 */
export async function serviceAccountClient(account: ServiceAccount): Promise<JWT> {
  const { gaxios, JWT } = await import('google-auth-library');
  const tokenUri = account.token_uri ?? GOOGLE_TOKEN_URL;
  const transporter = new gaxios.Gaxios();
  if (tokenUri !== GOOGLE_TOKEN_URL) {
    transporter.interceptors.request.add({
      resolved: async (options) => {
        if (String(options.url) === GOOGLE_TOKEN_URL) options.url = new URL(tokenUri);
        return options;
      },
    });
  }
  return new JWT({
    email: account.client_email,
    key: account.private_key,
    scopes: [FCM_SCOPE],
    transporter,
    additionalClaims: { aud: tokenUri },
  });
}

function accountKey(account: ServiceAccount): string {
  return createHash('sha256').update(`${account.client_email}\0${account.token_uri ?? ''}\0${account.private_key}`).digest('hex');
}
