import type { Outcome } from '../transport';

/** What APNs answered to one request. */
export interface ApnsResponse {
  status: number;
  /** `reason` of the JSON error body. */
  reason?: string;
  /** The `apns-id` response header. */
  apnsId?: string;
  /** `Retry-After`, already in milliseconds. */
  retryAfterMs?: number;
  /** `timestamp` of a 410 body: when APNs last confirmed the token invalid, ms since the epoch. */
  timestamp?: number;
}

/** The device token is gone or was never valid for this app: stop sending to it. */
const DROP_TOKEN = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'Unregistered', 'ExpiredToken']);
/** The app's configuration is wrong: every message on the channel would fail the same way. */
const PAUSE_CHANNEL = new Set([
  'InvalidProviderToken',
  'MissingProviderToken',
  'BadTopic',
  'TopicDisallowed',
  'MissingTopic',
  'BadCertificate',
  'BadCertificateEnvironment',
  'Forbidden',
]);
/** Transient: the same request may succeed later. */
const RETRY = new Set(['ExpiredProviderToken', 'IdleTimeout']);
/**
 * About APNs itself (failing, overloaded, shutting down, our token churn), not the message: no
 * attempt is spent, and a streak of them (or a Retry-After) slows the whole channel.
 */
const RETRY_CHANNEL = new Set(['InternalServerError', 'ServiceUnavailable', 'Shutdown', 'TooManyProviderTokenUpdates']);

/**
 * The one place that decides what an APNs answer means. Reasons decide first (Apple documents
 * them), the status code decides for unknown reasons.
 * @example apnsOutcome({ status: 410, reason: 'Unregistered' }) // { kind: 'drop-token', reason: 'Unregistered' }
 */
export function apnsOutcome(res: ApnsResponse): Outcome {
  if (res.status === 200) return { kind: 'delivered', providerId: res.apnsId };
  const reason = res.reason ?? `HTTP ${res.status}`;
  const since = res.status === 410 && res.timestamp !== undefined ? { since: res.timestamp } : {};
  if (res.reason) {
    if (DROP_TOKEN.has(res.reason)) return { kind: 'drop-token', reason, ...since };
    if (PAUSE_CHANNEL.has(res.reason)) return { kind: 'pause-channel', reason };
    // Too many requests for one device token: that token backs off, the rest of the channel goes on.
    if (res.reason === 'TooManyRequests') return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'token' };
    if (RETRY_CHANNEL.has(res.reason)) return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'channel' };
    if (RETRY.has(res.reason)) return { kind: 'retry', reason, afterMs: res.retryAfterMs };
  }
  if (res.status === 410) return { kind: 'drop-token', reason, ...since };
  if (res.status === 403) return { kind: 'pause-channel', reason };
  if (res.status === 429) return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'token' };
  if (res.status >= 500) return { kind: 'retry', reason, afterMs: res.retryAfterMs, scope: 'channel' };
  return { kind: 'failed', reason };
}
