import type { Clock } from '../../../lib/clock';
import { Semaphore } from '../concurrency';
import type { FcmCredentials } from '../../apps/credentials';
import { retryAfterMs, type Outcome, type PushRequest, type Transport } from '../transport';
import { FcmAccessTokens } from './fcm.auth';
import { fcmOutcome } from './fcm.outcome';

export const FCM_HOST = 'https://fcm.googleapis.com';

/** The messages:send URL of a project, on the credentials' endpoint or Google's. */
export function fcmSendUrl(creds: FcmCredentials | undefined, projectId: string): string {
  const host = (creds?.endpoint ?? FCM_HOST).replace(/\/+$/, '');
  return `${host}/v1/projects/${projectId}/messages:send`;
}

/**
 * The FCM HTTP v1 transport: an OAuth2 access token from the app's service account (its token_uri
 * honoured), then one POST per message.
 * @example const fcm = new FcmSender({ clock }); await fcm.send(request);
 */
export class FcmSender implements Transport {
  readonly tokens: FcmAccessTokens;
  private readonly limit: Semaphore;
  private closed = false;

  constructor(private readonly options: { clock: Clock; tokens?: FcmAccessTokens; requestTimeoutMs?: number; maxConcurrent?: number }) {
    this.tokens = options.tokens ?? new FcmAccessTokens();
    // Each request in flight holds an HTTP/1.1 connection of its own: keep their number sane.
    this.limit = new Semaphore(options.maxConcurrent ?? 100);
  }

  send(request: PushRequest): Promise<Outcome> {
    return this.limit.run(() => this.sendNow(request));
  }

  private async sendNow(request: PushRequest): Promise<Outcome> {
    const account = request.fcm?.serviceAccount;
    if (!account) return { kind: 'failed', reason: 'no FCM credentials' };
    if (this.closed) return { kind: 'unreachable', reason: 'shutting down' };
    // A 401 may only mean the cached access token was revoked: one more try with a new token.
    for (let attempt = 0; ; attempt++) {
      let accessToken: string;
      try {
        accessToken = await this.tokens.get(account);
      } catch (e) {
        return tokenFailure(e);
      }
      let response: Response;
      try {
        response = await fetch(request.url, {
          method: 'POST',
          headers: { ...request.headers, authorization: `Bearer ${accessToken}` },
          body: request.body,
          signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 30_000),
        });
      } catch (e) {
        // Refused, TLS, timeout, or cut after sending: no answer, so at least once means again.
        return { kind: 'unreachable', reason: `no answer: ${(e as Error).message}` };
      }
      const text = await response.text().catch(() => '');
      if (response.status === 401 && attempt === 0) {
        this.tokens.forget(account);
        continue;
      }
      return fcmOutcome({
        status: response.status,
        body: parseJson(text),
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), this.options.clock.now()),
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** The token endpoint refused the service account (pause), failed (the channel waits) or could not be reached. */
function tokenFailure(e: unknown): Outcome {
  const error = e as { message?: string; status?: number; response?: { status?: number } };
  const status = error.response?.status ?? error.status;
  const message = error.message ?? String(e);
  if (status !== undefined && status >= 400 && status < 500) return { kind: 'pause-channel', reason: `FCM authentication failed: ${message}` };
  if (status !== undefined) return { kind: 'retry', reason: `FCM token endpoint unavailable: ${message}`, scope: 'channel' };
  return { kind: 'unreachable', reason: `FCM token endpoint unreachable: ${message}` };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
