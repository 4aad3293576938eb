import { fieldPath, reasonCode, violationText } from '../provider-reason';
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
  const body = res.body as { name?: unknown; error?: { status?: unknown; message?: unknown; details?: FcmErrorDetail[] } } | undefined;
  if (res.status === 200) return { kind: 'delivered', providerId: typeof body?.name === 'string' ? body.name.slice(0, 200) : undefined };
  const details = Array.isArray(body?.error?.details) ? body.error.details : [];
  const errorCode = details.map((d) => reasonCode(d?.errorCode)).find((c) => c !== undefined);
  const rpcStatus = reasonCode(body?.error?.status);
  const code = errorCode ?? rpcStatus ?? `HTTP ${res.status}`;
  // Codes only: the error's message is the provider's free text and is never kept (provider-reason.ts).
  const reason = errorCode && rpcStatus && rpcStatus !== errorCode ? `${errorCode}: ${rpcStatus}` : code;
  if (DROP_TOKEN.has(code)) return { kind: 'drop-token', reason };
  const violation = fieldViolation(details);
  // INVALID_ARGUMENT is either a malformed registration token (dead: prune it) or a bad message
  // (fails without retry); the violated field or else the message tells which.
  if (code === 'INVALID_ARGUMENT' && (violation?.field === 'message.token' || /registration token/i.test(String(body?.error?.message ?? ''))))
    return { kind: 'drop-token', reason: `${reason}: invalid registration token` };
  if (code === 'QUOTA_EXCEEDED' || res.status === 429) {
    // The same code covers the project's per-minute quota (the whole channel waits) and one
    // device's message rate (only that token waits); only the message tells them apart.
    const scope = /device/i.test(String(body?.error?.message ?? '')) ? 'token' : 'channel';
    return { kind: 'retry', reason, afterMs: Math.max(FCM_QUOTA_WAIT_MS, res.retryAfterMs ?? 0), scope };
  }
  if (PAUSE_CHANNEL.has(code) || res.status === 401 || res.status === 403) return { kind: 'pause-channel', reason };
  // FCM failing or overloaded: about the provider, not the message.
  if (code === 'UNAVAILABLE' || code === 'INTERNAL' || res.status >= 500) return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'channel' };
  // A bad message: the field Google names (and its description, bounded and safe) lets an operator act on it.
  return { kind: 'failed', reason: violation ? [reason, violation.field, violation.description].filter(Boolean).join(': ') : reason };
}

/** An entry of an FCM error's `details`: an FcmError (`errorCode`) or a google.rpc.BadRequest (`fieldViolations`). */
interface FcmErrorDetail {
  '@type'?: unknown;
  errorCode?: unknown;
  fieldViolations?: { field?: unknown; description?: unknown }[];
}

/** The first field violation of a google.rpc.BadRequest detail whose field is a field path. */
function fieldViolation(details: FcmErrorDetail[]): { field: string; description?: string } | undefined {
  for (const detail of details) {
    if (detail?.['@type'] !== 'type.googleapis.com/google.rpc.BadRequest' || !Array.isArray(detail.fieldViolations)) continue;
    for (const v of detail.fieldViolations) {
      const field = fieldPath(v?.field);
      if (field) return { field, description: violationText(v?.description) };
    }
  }
  return undefined;
}
