import type { Outcome } from '../transport';

/** What FCM answered to one messages:send. */
export interface FcmResponse {
  status: number;
  /** The parsed JSON body, if any. */
  body?: unknown;
  /** `Retry-After`, already in milliseconds. */
  retryAfterMs?: number;
}

/** FCM asks for at least a minute after a quota error. */
export const FCM_QUOTA_WAIT_MS = 60_000;

const DROP_TOKEN = new Set(['UNREGISTERED', 'SENDER_ID_MISMATCH']);
const PAUSE_CHANNEL = new Set(['THIRD_PARTY_AUTH_ERROR', 'UNAUTHENTICATED', 'PERMISSION_DENIED']);

/**
 * The one place that decides what an FCM answer means: the FcmError code in `details` first, then
 * the google.rpc status, then the HTTP status.
 * @example fcmOutcome({ status: 404, body: { error: { status: 'NOT_FOUND', details: [{ errorCode: 'UNREGISTERED' }] } } }).kind // 'drop-token'
 */
export function fcmOutcome(res: FcmResponse): Outcome {
  const body = res.body as { name?: unknown; error?: { status?: string; message?: string; details?: { errorCode?: string }[] } } | undefined;
  if (res.status === 200) return { kind: 'delivered', providerId: typeof body?.name === 'string' ? body.name : undefined };
  const errorCode = body?.error?.details?.find((d) => typeof d?.errorCode === 'string')?.errorCode;
  const rpcStatus = body?.error?.status;
  const code = errorCode ?? rpcStatus ?? `HTTP ${res.status}`;
  const reason = body?.error?.message && body.error.message !== code ? `${code}: ${body.error.message}` : code;
  if (DROP_TOKEN.has(code)) return { kind: 'drop-token', reason };
  if (code === 'QUOTA_EXCEEDED' || res.status === 429) {
    // The same code covers the project's per-minute quota (the whole channel waits) and one
    // device's message rate (only that token waits); only the message tells them apart.
    const scope = /device/i.test(body?.error?.message ?? '') ? 'token' : 'channel';
    return { kind: 'retry', reason, afterMs: Math.max(FCM_QUOTA_WAIT_MS, res.retryAfterMs ?? 0), scope };
  }
  if (PAUSE_CHANNEL.has(code) || res.status === 401 || res.status === 403) return { kind: 'pause-channel', reason };
  // FCM failing or overloaded: about the provider, not the message.
  if (code === 'UNAVAILABLE' || code === 'INTERNAL' || res.status >= 500) return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'channel' };
  return { kind: 'failed', reason };
}
