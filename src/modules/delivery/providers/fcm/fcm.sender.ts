import type { Clock } from '../../../../lib/clock';
import { outboundGuard, type OutboundPolicy } from '../../../../lib/outbound-policy';
import { Semaphore } from '../../worker/concurrency';
import type { FcmCredentials } from '../../../apps/credentials';
import { retryAfterMs, type Outcome, type PushRequest, type Transport } from '../transport';
import { FcmAccessTokens } from './fcm.auth';
import { connectionReason, reasonCode } from '../provider-reason';
import { fcmOutcome } from './fcm.outcome';

export const FCM_HOST = 'https://fcm.googleapis.com';

/** The messages:send URL of a project, on the credentials' endpoint or Google's. */
export function fcmSendUrl(creds: FcmCredentials | undefined, projectId: string): string {
  const host = (creds?.endpoint ?? FCM_HOST).replace(/\/+$/, '');
  // The simulator's `{projectId}` placeholder stays readable; a real id is encoded like any path value.
  return `${host}/v1/projects/${projectId === '{projectId}' ? projectId : encodeURIComponent(projectId)}/messages:send`;
}

/**
 * The FCM HTTP v1 request of one message to one registration token (a device push) or one topic
 * (a broadcast's Android half). Without credentials, the simulator's: the project id a placeholder.
 */
export function fcmRequest(appId: string, creds: FcmCredentials | undefined, target: { token: string } | { topic: string }, message: Record<string, unknown>): PushRequest {
  return {
    appId,
    provider: 'fcm',
    url: fcmSendUrl(creds, creds?.serviceAccount.project_id ?? '{projectId}'),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: { ...target, ...message } }),
    fcm: creds,
  };
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

  private readonly allowed: ReturnType<typeof outboundGuard>;

  constructor(
    private readonly options: { clock: Clock; tokens?: FcmAccessTokens; requestTimeoutMs?: number; maxConcurrent?: number; outbound?: OutboundPolicy },
  ) {
    this.tokens = options.tokens ?? new FcmAccessTokens();
    this.allowed = outboundGuard(options.outbound ?? { allowPrivate: false });
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
    // Checked before every connection, not only when set: a name can resolve elsewhere since.
    const refused = (await this.allowed(request.url, 'FCM endpoint')) ?? (account.token_uri ? await this.allowed(account.token_uri, 'token_uri') : undefined);
    if (refused) return { kind: 'pause-channel', reason: refused };
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
        return { kind: 'unreachable', reason: connectionReason((e as Error).message, 'no answer') };
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
  const error = e as { status?: number; response?: { status?: number; data?: { error?: unknown } } };
  const status = error.response?.status ?? error.status;
  // The token endpoint's own words are not kept, only its OAuth error code (e.g. invalid_grant).
  const code = reasonCode(error.response?.data?.error) ?? (status !== undefined ? `HTTP ${status}` : undefined);
  if (status !== undefined && status >= 400 && status < 500) return { kind: 'pause-channel', reason: `FCM authentication failed: ${code}` };
  if (status !== undefined) return { kind: 'retry', reason: `FCM token endpoint unavailable: ${code}`, scope: 'channel' };
  return { kind: 'unreachable', reason: connectionReason(e instanceof Error ? e.message : String(e), 'FCM token endpoint unreachable') };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
