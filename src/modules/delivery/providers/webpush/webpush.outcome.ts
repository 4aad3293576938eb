import { reasonCode, violationText } from '../provider-reason';
import type { Outcome } from '../transport';

/** What a push service answered to one push. */
export interface WebPushResponse {
  status: number;
  /** The start of the body (the sender reads a few KB at most). */
  text?: string;
  /** `Retry-After`, already in milliseconds. */
  retryAfterMs?: number;
}

/** How long a 429 waits when the push service gives no Retry-After. */
export const WEBPUSH_RATE_WAIT_MS = 60_000;

/**
 * The one place that decides what a push service's answer means (RFC 8030 §5, §8.3): 201 sent;
 * 404 and 410 the subscription is gone; 413 too large; 429 and 5xx again later (Retry-After
 * honoured); any other refusal fails with the push service's words, reduced to safe text.
 * @example webPushOutcome({ status: 410 }).kind // 'drop-token'
 */
export function webPushOutcome(res: WebPushResponse): Outcome {
  const { status } = res;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  const said = serviceText(res.text);
  const reason = said ? `HTTP ${status}: ${said}` : `HTTP ${status}`;
  if (status === 404 || status === 410) return { kind: 'drop-token', reason };
  if (status === 413) return { kind: 'failed', reason: `${reason} (payload too large)` };
  // Too many pushes to this subscription (Apple, Mozilla): it waits, the other browsers do not.
  if (status === 429) return { kind: 'retry', reason, afterMs: res.retryAfterMs ?? WEBPUSH_RATE_WAIT_MS, scope: 'token' };
  // The push service failing: about it, not the message.
  if (status >= 500) return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'channel' };
  if (status >= 300 && status < 400) return { kind: 'failed', reason: `${reason} (redirect not followed)` };
  return { kind: 'failed', reason };
}

/**
 * What the push service said, kept only as safe text: Apple's `{"reason":"BadJwtToken"}`, a
 * JSON `message` or `error.message` (Mozilla, FCM), else the plain text itself.
 */
function serviceText(text: string | undefined): string | undefined {
  if (!text) return undefined;
  let json: { reason?: unknown; message?: unknown; error?: { message?: unknown } | unknown } | undefined;
  // Line breaks are spacing, not characters to mark.
  const plain = () => violationText(text.replace(/\s+/g, ' '));
  try {
    json = JSON.parse(text);
  } catch {
    return plain();
  }
  if (json === null || typeof json !== 'object') return plain();
  const error = json.error as { message?: unknown } | string | undefined;
  return reasonCode(json.reason) ?? violationText(json.message) ?? violationText(typeof error === 'string' ? error : error?.message) ?? violationText(json.reason);
}
