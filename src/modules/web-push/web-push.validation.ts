import { ECDH } from 'node:crypto';
import { endpointProblem, resolvedEndpointProblem, type OutboundPolicy } from '../../lib/outbound-policy';

/** What is wrong with a value, naming the field (the 400's `detail` starts with it). */
export interface FieldProblem {
  field: string;
  detail: string;
}

/** A browser's subscription, checked and decoded. */
export interface WebSubscription {
  endpoint: string;
  expirationTime: number | null;
  /** 65-byte uncompressed P-256 point. */
  p256dh: Buffer;
  /** 16-byte authentication secret. */
  auth: Buffer;
}

/** Longest endpoint accepted (Apple's, Google's and Mozilla's are 150-400 characters). */
export const MAX_ENDPOINT_LENGTH = 2048;
export const MAX_SUBJECT_LENGTH = 255;

const LOCAL_HOST = /^(localhost|.*\.localhost|.*\.local|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

/**
 * The VAPID `subject` as Apple requires it (it answers 403 BadJwtToken otherwise): a `mailto:`
 * address or an `https:` URL, without spaces or angle brackets, not at localhost.
 * @example subjectProblem('mailto:ops@example.com') // undefined
 */
export function subjectProblem(subject: unknown, field = 'subject'): FieldProblem | undefined {
  const problem = { field, detail: `${field} must be a mailto: address or an https: URL, without spaces or angle brackets, not at localhost` };
  if (typeof subject !== 'string' || subject.length > MAX_SUBJECT_LENGTH || /[\s<>]/.test(subject)) return problem;
  const mail = subject.match(/^mailto:[^@/?#]+@([^@/?#]+)$/);
  if (mail) return LOCAL_HOST.test(mail[1]!) || !mail[1]!.includes('.') ? problem : undefined;
  if (!subject.startsWith('https://') || !URL.canParse(subject)) return problem;
  const { hostname, username, password } = new URL(subject);
  return LOCAL_HOST.test(hostname) || username || password ? problem : undefined;
}

/** An https URL (the app's `defaultUrl`, a template's `url`): what a notification opens. */
export function httpsUrlProblem(value: unknown, field: string): FieldProblem | undefined {
  const ok = typeof value === 'string' && value.length <= MAX_ENDPOINT_LENGTH && value.startsWith('https://') && URL.canParse(value);
  return ok ? undefined : { field, detail: `${field} must be an https URL` };
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Checks what `PushSubscription.toJSON()` gave without DNS: the endpoint an https URL at an address
 * the outbound policy allows (loopback http only with `[security] allow_private_endpoints`),
 * `keys.p256dh` a 65-byte point on P-256, `keys.auth` 16 bytes.
 * @example parseSubscription(json, { allowPrivate: false }) // { subscription } or { problem: { field: 'subscription.keys.auth', … } }
 */
export function parseSubscription(input: unknown, policy: OutboundPolicy, field = 'subscription'): { subscription: WebSubscription } | { problem: FieldProblem } {
  const fail = (name: string, detail: string) => ({ problem: { field: name, detail: `${name} ${detail}` } });
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return fail(field, 'must be an object, as PushSubscription.toJSON() gives it');
  const { endpoint, expirationTime, keys } = input as { endpoint?: unknown; expirationTime?: unknown; keys?: unknown };
  const endpointField = `${field}.endpoint`;
  if (typeof endpoint !== 'string' || endpoint.length > MAX_ENDPOINT_LENGTH) return fail(endpointField, `must be an https URL of at most ${MAX_ENDPOINT_LENGTH} characters`);
  const refused = endpointProblem(endpoint, endpointField, policy);
  if (refused) return { problem: { field: endpointField, detail: refused } };
  if (expirationTime !== undefined && expirationTime !== null && !(typeof expirationTime === 'number' && Number.isFinite(expirationTime) && expirationTime >= 0))
    return fail(`${field}.expirationTime`, 'must be null or a time in milliseconds');
  if (keys === null || typeof keys !== 'object') return fail(`${field}.keys`, 'must hold p256dh and auth');
  const { p256dh, auth } = keys as { p256dh?: unknown; auth?: unknown };
  const point = decode(p256dh);
  if (!point || point.length !== 65 || point[0] !== 4 || !onCurve(point)) return fail(`${field}.keys.p256dh`, 'must be the base64url of a 65-byte uncompressed P-256 point');
  const secret = decode(auth);
  if (!secret || secret.length !== 16) return fail(`${field}.keys.auth`, 'must be the base64url of 16 bytes');
  return { subscription: { endpoint, expirationTime: (expirationTime as number | null | undefined) ?? null, p256dh: point, auth: secret } };
}

/**
 * `parseSubscription`, then every address the endpoint's host resolves to: run at registration;
 * the sender checks again before each connection.
 */
export async function checkSubscription(input: unknown, policy: OutboundPolicy, field = 'subscription'): Promise<{ subscription: WebSubscription } | { problem: FieldProblem }> {
  const parsed = parseSubscription(input, policy, field);
  if ('problem' in parsed) return parsed;
  const refused = await resolvedEndpointProblem(parsed.subscription.endpoint, `${field}.endpoint`, policy);
  return refused ? { problem: { field: `${field}.endpoint`, detail: refused } } : parsed;
}

function decode(value: unknown): Buffer | undefined {
  return typeof value === 'string' && value.length <= 200 && BASE64URL.test(value) ? Buffer.from(value.replace(/=+$/, ''), 'base64url') : undefined;
}

function onCurve(point: Buffer): boolean {
  try {
    ECDH.convertKey(point, 'prime256v1');
    return true;
  } catch {
    return false;
  }
}
