import type { ApnsCredentials, FcmCredentials } from '../../apps/credentials';
import type { WebPushRequest } from './webpush/webpush.request';

/** Where a delivery goes: a real provider, or the built-in simulator when the app has no credentials. */
export type TransportName = 'apns' | 'fcm' | 'webpush' | 'simulator';

/**
 * One HTTP request to a push provider, fully built: the simulator records it as is, the real
 * transports add only their authorization header (which is never recorded).
 */
export interface PushRequest {
  appId: string;
  /** The provider the request is addressed to (for the simulator: the one it stands in for). */
  provider: 'apns' | 'fcm' | 'webpush';
  /** Web Push: the endpoint's origin only (the endpoint is a capability, kept out of records); the push is `webpush`. */
  url: string;
  headers: Record<string, string>;
  /** The exact JSON body. */
  body: string;
  /** Present when the request goes to APNs for real. */
  apns?: ApnsCredentials;
  /** Present when the request goes to FCM for real. */
  fcm?: FcmCredentials;
  /** The push itself, when the request goes to a Web Push service. */
  webpush?: WebPushRequest;
}

/**
 * What a provider's answer means for the delivery. Decided in one place per provider
 * (apns.outcome.ts, fcm.outcome.ts).
 */
export type Outcome =
  | { kind: 'delivered'; providerId?: string }
  /**
   * Try again later. `scope` says what the answer is about: `channel` (the provider is overloaded
   * or over the project's quota: not a delivery attempt, and a Retry-After slows the whole
   * channel), `token` (too many pushes to this one device token: that token backs off), or the
   * message itself (absent: counts as an attempt).
   */
  | { kind: 'retry'; reason: string; afterMs?: number; scope?: 'channel' | 'token' }
  /**
   * No answer from the provider: connection refused, TLS failure, timeout, GOAWAY, a reset or a
   * dropped connection (the outcome of a request in flight is unknown, so it goes again: at least
   * once). Never a delivery attempt; moves the endpoint toward down (endpoint-health/endpoint-health.ts), unless
   * `serverAlive`: the provider itself turned the request away unprocessed (GOAWAY, refused
   * streams) more often than the transport resends at once.
   */
  | { kind: 'unreachable'; reason: string; serverAlive?: boolean }
  /** `since`: when the provider last found the token invalid (APNs 410 `timestamp`, ms). */
  | { kind: 'drop-token'; reason: string; since?: number }
  | { kind: 'pause-channel'; reason: string }
  | { kind: 'failed'; reason: string };

/** Sends one request and says what became of it. Never throws for a provider's refusal. */
export interface Transport {
  send(request: PushRequest): Promise<Outcome>;
  /** Closes connections; sends in flight end with an unreachable outcome. */
  close(): Promise<void>;
}

export type Transports = Record<TransportName, Transport>;

/** The `Retry-After` header (seconds or an HTTP date) in milliseconds from `now`, if usable. */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
